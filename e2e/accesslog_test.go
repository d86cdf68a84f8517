package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// accessLogFilter is the README's access-log encoder: it deletes the
// credential headers Caddy does not redact by itself.
const accessLogFilter = `format filter {
			wrap json
			fields {
				request>headers>X-Api-Key delete
				request>headers>Api-Key delete
				request>headers>X-Goog-Api-Key delete
				request>headers>Sec-Websocket-Protocol delete
			}
		}`

// startLoggedGateway starts the mock gateway with a file access log on
// its site (with format as the log's format lines) and Caddy's own log at
// WARN in a second file; it returns the gateway and both paths.
func startLoggedGateway(t *testing.T, format string) (g *gateway, accessLog, caddyLog string) {
	t.Helper()
	clearEnv(t)
	dir := t.TempDir()
	accessLog, caddyLog = filepath.Join(dir, "access.log"), filepath.Join(dir, "caddy.log")
	ports := freePorts(t, 2)
	g = &gateway{DataDir: dir, URL: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), AdminURL: fmt.Sprintf("http://127.0.0.1:%d", ports[1])}
	cf := fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	auto_https off
	log {
		output file %s
		level WARN
	}
	modelgate {
		storage %s
		%s
	}
}
http://127.0.0.1:%d {
	log {
		output file %s
		%s
	}
	modelgate
}
`, ports[1], caddyLog, filepath.Join(dir, "modelgate.db"), mockBlock(""), ports[0], accessLog, format)
	if err := caddy.Load(adapt(t, cf), true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	waitHealthy(t, g.URL)
	return g, accessLog, caddyLog
}

// sendEveryCredential sends the master key and a managed key in every
// credential header form and returns the secrets sent.
func sendEveryCredential(t *testing.T, g *gateway) []string {
	t.Helper()
	managed := createKey(t, g, `{"name":"logged"}`).Secret
	chat := `{"model":"demo/mock-chat","messages":[{"role":"user","content":"hi"}]}`
	for _, key := range []string{masterKey, managed} {
		for _, h := range [][]string{
			{"Authorization", "Bearer " + key},
			{"x-api-key", key},
			{"api-key", key},
			{"x-goog-api-key", key},
			{"Sec-WebSocket-Protocol", "realtime, openai-insecure-api-key." + key},
			{"Proxy-Authorization", "Bearer " + key},
			{"x-api-key", key, "Authorization", "Bearer " + key},
		} {
			if _, err := send("POST", g.URL+"/v1/chat/completions", chat, h...); err != nil {
				t.Fatal(err)
			}
			if _, err := send("GET", g.URL+"/v1/models", "", h...); err != nil {
				t.Fatal(err)
			}
		}
	}
	return []string{masterKey, managed}
}

// readLog waits until path holds at least want lines and returns it.
func readLog(t *testing.T, path string, want int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), "\n") >= want || time.Now().After(deadline) {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAccessLogFilteredKeepsKeysOut: with the README's access-log format,
// no key reaches the access log in any credential header form, while the
// requests are logged.
func TestAccessLogFilteredKeepsKeysOut(t *testing.T) {
	g, accessLog, _ := startLoggedGateway(t, accessLogFilter)
	secrets := sendEveryCredential(t, g)
	log := readLog(t, accessLog, 28)
	if n := strings.Count(log, `"handled request"`); n < 28 {
		t.Fatalf("access log has %d entries, want at least 28:\n%s", n, log)
	}
	for _, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the access log holds the key %s…", s[:6])
		}
		if strings.Contains(log, s[:len(s)-4]) {
			t.Errorf("the access log holds part of the key %s…", s[:6])
		}
	}
	if !strings.Contains(log, `"Authorization":["REDACTED"]`) {
		t.Errorf("Authorization not logged as REDACTED")
	}
}

// TestAccessLogWarnsWithoutFilter: the gateway cannot take credential
// headers out of an access log on its own, so a site that writes one gets
// a warning at start naming the fields to delete.
func TestAccessLogWarnsWithoutFilter(t *testing.T) {
	_, _, caddyLog := startLoggedGateway(t, "format json")
	log := readLog(t, caddyLog, 1)
	if !strings.Contains(log, "access logging is on") || !strings.Contains(log, "request>headers>X-Api-Key") ||
		!strings.Contains(log, "request>headers>X-Goog-Api-Key") || !strings.Contains(log, `"srv0"`) {
		t.Fatalf("no access-log warning in Caddy's log:\n%s", log)
	}
}
