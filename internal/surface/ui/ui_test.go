package ui

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/routes"
)

func serve(method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	Handler{}.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// dashboardPaths are the paths of the dashboard routes in the route table.
func dashboardPaths() []string {
	var out []string
	for _, rt := range routes.All() {
		if rt.Shape == routes.ShapeDashboard && rt.Documented() {
			out = append(out, rt.Path)
		}
	}
	return out
}

func TestPagesAndAssets(t *testing.T) {
	for _, p := range append(dashboardPaths(), "/admin/dashboard/") {
		rec := serve("GET", p)
		if rec.Code != 200 || rec.Body.Len() == 0 {
			t.Fatalf("%s: %d", p, rec.Code)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("%s: security headers missing: %v", p, rec.Header())
		}
		if rt, ok := routes.Lookup("GET", p); !ok || rt.Shape != routes.ShapeDashboard || rt.Credential != routes.CredentialNone {
			t.Errorf("%s: route %v is not a public dashboard route", p, rt)
		}
	}
	if ct := serve("GET", "/admin/dashboard").Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("page content type %q", ct)
	}
	if ct := serve("GET", "/admin/static/modelgate.css").Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("css content type %q", ct)
	}
	body := serve("GET", "/admin/dashboard").Body.String()
	for _, want := range []string{`<script type="module" src="/admin/static/app.js">`, "/admin/static/modelgate.css", `id="login-form"`} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard page lacks %q", want)
		}
	}
	if ct := serve("GET", "/admin/static/app.js").Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("js content type %q", ct)
	}
	if rec := serve("HEAD", "/admin/dashboard/audit"); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/admin/dashboard/nope", 404, "unknown_route"},
		{"GET", "/admin/static/missing.js", 404, "unknown_route"},
		{"GET", "/admin/static/../dashboard", 404, "unknown_route"},
		{"POST", "/admin/dashboard", 405, "method_not_allowed"},
	}
	for _, c := range cases {
		rec := serve(c.method, c.path)
		var body struct {
			Error struct {
				Type string `json:"type"`
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != c.status || body.Error.Code != c.code || body.Error.Type != "invalid_request_error" {
			t.Errorf("%s %s: %d %s", c.method, c.path, rec.Code, rec.Body)
		}
	}
	for _, p := range []string{"/admin/dashboards", "/admin/auth-keys", "/v1/models"} {
		if rt, _ := routes.Lookup("GET", p); rt != nil && rt.Shape == routes.ShapeDashboard {
			t.Errorf("%s is a dashboard route", p)
		}
	}
	if serve("POST", "/admin/dashboard").Header().Get("Allow") != "GET, HEAD" {
		t.Error("405 without Allow")
	}
}

// TestRoutesAreServed: every dashboard route of the route table has an
// embedded file, and every file a route.
func TestRoutesAreServed(t *testing.T) {
	declared := map[string]bool{}
	for _, p := range dashboardPaths() {
		declared[p] = true
		if _, ok := files[p]; !ok {
			t.Errorf("route %s has no file", p)
		}
	}
	for p := range files {
		if !declared[p] {
			t.Errorf("file %s has no route", p)
		}
	}
	if len(declared) < 3 {
		t.Errorf("only %d dashboard routes", len(declared))
	}
}

// TestPolicy: the Content-Security-Policy allows nothing from another
// origin and no inline script, and no page or script would need more: no
// inline script or style, no handler attribute, no URL of another origin.
func TestPolicy(t *testing.T) {
	csp := serve("GET", "/admin/dashboard").Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-") || strings.Contains(csp, "http") {
		t.Errorf("CSP %q is not strict", csp)
	}
	if got := serve("GET", "/admin/dashboard/nope").Header().Get("Content-Security-Policy"); got != csp {
		t.Errorf("404 CSP %q", got)
	}
	inline := regexp.MustCompile(`<script>|<script [^>]*>[^<]|<style|\sstyle=|\son[a-z]+=|https?://`)
	for p, f := range files {
		body, _ := assets.ReadFile(f.name)
		s := string(body)
		if strings.HasSuffix(f.name, ".js") {
			// Scripts build DOM nodes; they never parse HTML strings.
			if strings.Contains(s, "innerHTML") || strings.Contains(s, "insertAdjacentHTML") || strings.Contains(s, "eval(") {
				t.Errorf("%s parses HTML or evaluates code", p)
			}
			if m := regexp.MustCompile(`https?://[^"'\s]*`).FindAllString(s, -1); len(m) > 0 {
				for _, u := range m {
					if u != "http://www.w3.org/2000/svg" {
						t.Errorf("%s names another origin: %s", p, u)
					}
				}
			}
			continue
		}
		if strings.HasSuffix(f.name, ".html") && inline.MatchString(s) {
			t.Errorf("%s has inline script, style or a foreign URL: %q", p, inline.FindString(s))
		}
	}
}

// TestSize: every asset together stays under 300 KB compressed.
func TestSize(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.name] {
			continue
		}
		seen[f.name] = true
		body, err := assets.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = zw.Write(body)
	}
	_ = zw.Close()
	if buf.Len() > 300<<10 {
		t.Errorf("assets are %d bytes compressed", buf.Len())
	}
	t.Logf("%d files, %d bytes compressed", len(seen), buf.Len())
}

// TestEveryAssetIsServed: every file embedded is reachable, so nothing
// dead ships in the binary.
func TestEveryAssetIsServed(t *testing.T) {
	served := map[string]bool{}
	for _, f := range files {
		served[f.name] = true
	}
	entries, err := assets.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !served["assets/"+e.Name()] {
			t.Errorf("assets/%s is embedded but not served", e.Name())
		}
	}
}
