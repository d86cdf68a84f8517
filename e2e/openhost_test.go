package e2e

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// startCatchAllGateway starts a gateway whose site takes every Host on
// its port (bound to 127.0.0.1), beside a site named gateway.lan.test on
// the same port, with the modelgate block given; it returns the base URL.
func startCatchAllGateway(t *testing.T, modelgateBlock string) string {
	t.Helper()
	dir := t.TempDir()
	ports := freePorts(t, 2)
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
http://:%d {
	bind 127.0.0.1
	modelgate
}
http://gateway.lan.test:%d {
	bind 127.0.0.1
	modelgate
}
`, ports[1], filepath.Join(dir, "modelgate.db"), modelgateBlock, ports[0], ports[0])
	if err := caddy.Load(adapt(t, cf), true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	waitHealthy(t, url)
	return url
}

// sendAs sends a request to url with the Host header host (the
// connection still goes to url's address); headers come in name, value
// pairs.
func sendAs(t *testing.T, host, method, url, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s as %s: %v", method, url, host, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

// TestOpenModeRefusesForeignHost: with no master key and no managed key,
// a loopback client whose request names a host that is not a loopback
// name or address nor one the site names (a page on attacker.example
// whose name now resolves to 127.0.0.1) gets 403 host_not_allowed in the
// gateway's error shape on every endpoint it could spend credit or read
// records through, the open admin API included; localhost, 127.0.0.1,
// [::1] and the site's own name, with the port, are served.
func TestOpenModeRefusesForeignHost(t *testing.T) {
	clearEnv(t)
	url := startCatchAllGateway(t, "provider demo {\n type mock\n}\nadmin {\n allow_unauthenticated true\n}")
	port := url[strings.LastIndex(url, ":")+1:]
	for _, c := range []struct{ method, path, body, refused string }{
		{"POST", "/v1/chat/completions", mockChat, `"host_not_allowed"`},
		{"GET", "/v1/models", "", `"host_not_allowed"`},
		// Anthropic's shape has no code; its type says permission.
		{"POST", "/v1/messages", `{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, `"permission_error"`},
		{"GET", "/admin/audit/log", "", `"host_not_allowed"`},
	} {
		for _, host := range []string{"attacker.example:" + port, "attacker.example", "localhost.attacker.example:" + port} {
			res := sendAs(t, host, c.method, url+c.path, c.body)
			if res.Status != 403 || !strings.Contains(string(res.Body), c.refused) {
				t.Errorf("%s %s as %s: %d %.200s", c.method, c.path, host, res.Status, res.Body)
			}
		}
		for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "gateway.lan.test:" + port, "app.localhost:" + port} {
			if res := sendAs(t, host, c.method, url+c.path, c.body); res.Status != 200 {
				t.Errorf("%s %s as %s: %d %.200s", c.method, c.path, host, res.Status, res.Body)
			}
		}
	}
	sendAs(t, "attacker.example:"+port, "POST", url+"/v1/chat/completions", mockChat).
		ExpectErr(t, 403, "invalid_request_error", "host_not_allowed")
	if res := sendAs(t, "attacker.example:"+port, "GET", url+"/health", ""); res.Status != 200 {
		t.Errorf("/health as attacker.example: %d", res.Status)
	}
}

// TestHostCheckOnlyInOpenMode: with a master key the gateway serves any
// Host to a caller presenting it; the check guards the open mode only.
func TestHostCheckOnlyInOpenMode(t *testing.T) {
	clearEnv(t)
	url := startCatchAllGateway(t, mockBlock(""))
	if res := sendAs(t, "attacker.example", "POST", url+"/v1/chat/completions", mockChat, bearer(masterKey)...); res.Status != 200 {
		t.Errorf("with the master key as attacker.example: %d %s", res.Status, res.Body)
	}
	sendAs(t, "attacker.example", "POST", url+"/v1/chat/completions", mockChat).
		ExpectErr(t, 401, "authentication_error", "missing_api_key")
}
