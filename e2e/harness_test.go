package e2e

// The gateway under test: starting, reloading, restarting and failing to
// start it from a Caddyfile, the environment it reads, and the pieces of
// the modelgate option the tests assemble.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	_ "github.com/modelgate/modelgate/internal/glue/handlers"
)

// masterKey is the gateway master key of every test that configures one.
const masterKey = "mg-master-e2e-0123456789"

// userPathHeader is the default user-path header.
const userPathHeader = "X-Modelgate-User-Path"

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
func caddyfile(modelgateBlock string, port, adminPort int, dataDir string) string {
	return siteCaddyfile(modelgateBlock, "", port, adminPort, dataDir)
}

// siteCaddyfile is caddyfile with siteDirectives placed in the site block
// before modelgate.
func siteCaddyfile(modelgateBlock, siteDirectives string, port, adminPort int, dataDir string) string {
	return fmt.Sprintf(`{
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
%s
	modelgate
}
`, adminPort, filepath.Join(dataDir, "modelgate.db"), modelgateBlock, port, siteDirectives)
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

// waitProvidersListed waits, up to 15 s, until the running gateway has
// its providers' first model listings. Until then the model inventory is
// empty by design: a test that reads it once right after the start calls
// this first (on a busy machine it saw []).
func waitProvidersListed(t testing.TB) {
	t.Helper()
	v, err := caddy.ActiveContext().App("modelgate")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-v.(*caddymodule.App).Proxy().Registry.Ready():
	case <-time.After(15 * time.Second):
		t.Fatal("the providers' first model listings never arrived")
	}
}

// startMockGateway clears the environment and starts a gateway with the
// master key and the mock provider (mockBlock).
func startMockGateway(t *testing.T) *gateway {
	t.Helper()
	clearEnv(t)
	return startGateway(t, mockBlock(""))
}

// restartGateway stops the running gateway completely (its store is
// closed) and starts a new one with modelgateBlock.
func restartGateway(t *testing.T, modelgateBlock string) *gateway {
	t.Helper()
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	return startGateway(t, modelgateBlock)
}

// loadFails loads a gateway that must not start and returns its error.
func loadFails(t *testing.T, modelgateBlock string) error {
	t.Helper()
	ports := freePorts(t, 2)
	err := caddy.Load(adapt(t, caddyfile(modelgateBlock, ports[0], ports[1], t.TempDir())), true)
	if err == nil {
		_ = caddy.Stop()
		t.Fatalf("the gateway started with\n%s", modelgateBlock)
	}
	return err
}

// reload loads a new modelgate block into the running gateway, in-process
// like `modelgate reload`.
func (g *gateway) reload(t testing.TB, modelgateBlock string) error {
	t.Helper()
	return caddy.Load(adapt(t, caddyfile(modelgateBlock, portOf(g.URL), portOf(g.AdminURL), g.DataDir)), true)
}

// portOf returns the port of an http://host:port URL.
func portOf(u string) int {
	var p int
	_, _ = fmt.Sscanf(u[strings.LastIndex(u, ":")+1:], "%d", &p)
	return p
}

// waitHealthy waits up to 10 s for GET /health to answer 200.
func waitHealthy(t testing.TB, base string) {
	t.Helper()
	poll(t, 10*time.Second, "gateway at "+base+" healthy", func() bool {
		resp, err := http.Get(base + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// clearEnv removes, for the duration of the test, every environment
// variable the gateway or the SDKs read, so the host environment cannot add
// providers, a master key, switches or rate-limit rules: what the test
// configures is all there is.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if gatewayOrSDKVariable(k) {
			t.Setenv(k, "") // restores the value when the test ends
			_ = os.Unsetenv(k)
		}
	}
}

// gatewayOrSDKVariable reports whether the gateway or one of the official
// SDKs reads the environment variable k.
func gatewayOrSDKVariable(k string) bool {
	switch {
	case strings.HasSuffix(k, "_API_KEY"), strings.HasSuffix(k, "_BASE_URL"), strings.HasSuffix(k, "_ENABLED"),
		strings.HasPrefix(k, "ADMIN_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "ANTHROPIC_"),
		strings.HasPrefix(k, "SET_RATE_LIMIT_"), strings.HasPrefix(k, "SET_PROVIDER_RATE_LIMIT_"):
		return true
	}
	switch k {
	case "GATEWAY_MASTER_KEY", "GATEWAY_ENTITLEMENTS", "MODELGATE_DATA_PATH", "USER_PATH_HEADER",
		"MAX_REQUEST_BODY_BYTES", "GC_MIN_HEAP_BYTES", "RATE_LIMITS_FLUSH_INTERVAL", "ENABLED_PASSTHROUGH_PROVIDERS", "GOGC":
		return true
	}
	return false
}

// mockBlock is a modelgate block with the master key, the mock provider
// named demo and the extra lines.
func mockBlock(extra string) string {
	return "master_key " + masterKey + "\nprovider demo {\n type mock\n}\n" + extra
}

// providerBlock renders one provider block of the modelgate option; key
// and baseURL are left out when empty, extra lines are added as they are.
func providerBlock(name, typ, key, baseURL string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s {\n\t\t\ttype %s\n", name, typ)
	if key != "" {
		fmt.Fprintf(&b, "\t\t\tapi_key %s\n", key)
	}
	if baseURL != "" {
		fmt.Fprintf(&b, "\t\t\tbase_url %s\n", baseURL)
	}
	for _, e := range extra {
		fmt.Fprintf(&b, "\t\t\t%s\n", e)
	}
	b.WriteString("\t\t}\n")
	return b.String()
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

// closedURL returns an http base URL on a loopback port nobody listens on.
func closedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}
