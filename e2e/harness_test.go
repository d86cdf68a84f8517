package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/modelgate/modelgate/caddymodule"
	_ "github.com/modelgate/modelgate/handlers"
)

// gateway is a running in-process Modelgate server.
type gateway struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234.
	URL string
	// AdminURL is Caddy's admin endpoint (for /load).
	AdminURL string
	// DataDir holds the bbolt file.
	DataDir string
}

// freePorts returns n distinct loopback ports that were free a moment ago.
// All n listeners stay open until every port is chosen: two ports picked
// one after the other can otherwise be the same, and Caddy's admin server
// and HTTP server would then share it (SO_REUSEPORT), each taking some of
// the other's connections.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// caddyfile returns a complete Caddyfile: global options with the given
// modelgate block body, and a site on port serving the modelgate chain.
// Placeholders {PORT}, {ADMIN} and {DATA} are filled in.
func caddyfile(modelgateBlock string, port, adminPort int, dataDir string) string {
	cf := fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	auto_https off
	log {
		level ERROR
	}
	modelgate {
		storage %s
%s
	}
}
http://127.0.0.1:%d {
	modelgate
}
`, adminPort, filepath.Join(dataDir, "modelgate.db"), modelgateBlock, port)
	return cf
}

// adapt turns a Caddyfile into Caddy JSON.
func adapt(t testing.TB, cf string) []byte {
	t.Helper()
	cfgJSON, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), nil)
	if err != nil {
		t.Fatalf("adapting Caddyfile: %v\n%s", err, cf)
	}
	for _, w := range warnings {
		if !strings.Contains(w.Message, "not formatted") {
			t.Logf("caddyfile warning: %s", w.String())
		}
	}
	return cfgJSON
}

// startGateway loads a Caddyfile built from modelgateBlock (the body of the
// global modelgate option) and returns the running server. The server is
// stopped when the test ends. Tests using it must not run in parallel:
// Caddy holds one config per process.
func startGateway(t testing.TB, modelgateBlock string) *gateway {
	t.Helper()
	g := &gateway{DataDir: t.TempDir()}
	ports := freePorts(t, 2)
	port, adminPort := ports[0], ports[1]
	g.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	g.AdminURL = fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	if err := caddy.Load(adapt(t, caddyfile(modelgateBlock, port, adminPort, g.DataDir)), true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	waitHealthy(t, g.URL)
	return g
}

// reload loads a new modelgate block into the running gateway, in-process
// like `modelgate reload`.
func (g *gateway) reload(t testing.TB, modelgateBlock string) error {
	t.Helper()
	port := portOf(g.URL)
	adminPort := portOf(g.AdminURL)
	return caddy.Load(adapt(t, caddyfile(modelgateBlock, port, adminPort, g.DataDir)), true)
}

func portOf(u string) int {
	var p int
	_, _ = fmt.Sscanf(u[strings.LastIndex(u, ":")+1:], "%d", &p)
	return p
}

func waitHealthy(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("gateway at %s never became healthy", base)
}

// fixturesDir is ../shared/fixtures/providers relative to the repository.
func fixturesDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(file))
	for _, cand := range []string{
		filepath.Join(repo, "..", "shared", "fixtures", "providers"),
		os.Getenv("MODELGATE_FIXTURES"),
	} {
		if cand == "" {
			continue
		}
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
	}
	t.Fatal("fixtures not found: expected ../shared/fixtures/providers beside the repository (or MODELGATE_FIXTURES)")
	return ""
}

// fixture returns the bytes of one recorded provider response.
func fixture(t testing.TB, family, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), family, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes content to a file in a fresh temp dir and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
