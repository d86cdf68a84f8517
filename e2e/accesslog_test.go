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

// accessLogFilter is the access-log encoder docs/access.md gives: it deletes the
// credential headers Caddy does not redact by itself.
const accessLogFilter = `format filter {
			wrap json
			fields {
				request>headers>X-Api-Key delete
				request>headers>Api-Key delete
				request>headers>Xi-Api-Key delete
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
			{"xi-api-key", key},
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

// TestAccessLogFilteredKeepsKeysOut: with docs/access.md's access-log format,
// no key reaches the access log in any credential header form, while the
// requests are logged; the gateway, seeing that, does not warn about the
// access log at start.
func TestAccessLogFilteredKeepsKeysOut(t *testing.T) {
	g, accessLog, caddyLog := startLoggedGateway(t, accessLogFilter)
	secrets := sendEveryCredential(t, g)
	log := readLog(t, accessLog, 32)
	if n := strings.Count(log, `"handled request"`); n < 32 {
		t.Fatalf("access log has %d entries, want at least 32:\n%s", n, log)
	}
	if b, _ := os.ReadFile(caddyLog); strings.Contains(string(b), "access logging is on") {
		t.Errorf("warned about an access log that deletes every credential header:\n%s", b)
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

// startExample starts the gateway from Caddyfile.example, edited by edit,
// on a free port bound to 127.0.0.1, with its own admin address, data
// file and Caddy's own log at WARN in a file, whose path it returns.
func startExample(t *testing.T, edit func(string) string) string {
	t.Helper()
	clearEnv(t)
	dir := t.TempDir()
	caddyLog := filepath.Join(dir, "caddy.log")
	ports := freePorts(t, 2)
	t.Setenv("MODELGATE_PORT", fmt.Sprint(ports[0]))
	t.Setenv("MODELGATE_DATA_PATH", filepath.Join(dir, "modelgate.db"))
	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	cf := strings.Replace(string(src), "{\n", fmt.Sprintf("{\n\tadmin 127.0.0.1:%d\n\tpersist_config off\n\tlog {\n\t\toutput file %s\n\t\tlevel WARN\n\t}\n", ports[1], caddyLog), 1)
	cf = strings.Replace(cf, ":{$MODELGATE_PORT:8080} {\n", ":{$MODELGATE_PORT:8080} {\n\tbind 127.0.0.1\n", 1)
	if err := caddy.Load(adapt(t, edit(cf)), true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	waitHealthy(t, fmt.Sprintf("http://127.0.0.1:%d", ports[0]))
	return caddyLog
}

// TestExampleCaddyfileDrawsNoAccessLogWarning: Caddyfile.example's access
// log deletes every credential header, so the gateway started from it
// does not warn about it; the same file missing one delete (Xi-Api-Key)
// draws the warning, naming the log.
func TestExampleCaddyfileDrawsNoAccessLogWarning(t *testing.T) {
	caddyLog := startExample(t, func(s string) string { return s })
	if b, _ := os.ReadFile(caddyLog); strings.Contains(string(b), "access logging is on") {
		t.Errorf("Caddyfile.example draws the access-log warning:\n%s", b)
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	caddyLog = startExample(t, func(s string) string {
		out := strings.Replace(s, "request>headers>Xi-Api-Key delete\n", "", 1)
		if out == s {
			t.Fatal("Caddyfile.example does not delete Xi-Api-Key")
		}
		return out
	})
	log := readLog(t, caddyLog, 1)
	if !strings.Contains(log, "access logging is on") || !strings.Contains(log, `"logs":["log0"]`) {
		t.Errorf("no warning naming the log without the Xi-Api-Key delete:\n%s", log)
	}
}
