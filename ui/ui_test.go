package ui

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	Handler{}.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestPagesAndAssets(t *testing.T) {
	for _, p := range append(append(Pages(), Assets()...), "/admin/dashboard/") {
		rec := serve("GET", p)
		if rec.Code != 200 || rec.Body.Len() == 0 {
			t.Fatalf("%s: %d", p, rec.Code)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("%s: security headers missing: %v", p, rec.Header())
		}
		if !IsUIPath(p) {
			t.Errorf("IsUIPath(%s) = false", p)
		}
	}
	if ct := serve("GET", "/admin/dashboard").Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("page content type %q", ct)
	}
	if ct := serve("GET", "/admin/static/modelgate.css").Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("css content type %q", ct)
	}
	body := serve("GET", "/admin/dashboard").Body.String()
	for _, want := range []string{"arrives in a later release", "/admin/auth-keys", "/admin/runtime/config", "/admin/openapi.json", "/admin/static/modelgate.css"} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard page lacks %q", want)
		}
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
	if IsUIPath("/admin/dashboards") || IsUIPath("/admin/auth-keys") || IsUIPath("/v1/models") {
		t.Error("IsUIPath too broad")
	}
	if serve("POST", "/admin/dashboard").Header().Get("Allow") != "GET, HEAD" {
		t.Error("405 without Allow")
	}
}

func TestRoutesAreServed(t *testing.T) {
	for p := range pages {
		found := false
		for _, q := range Pages() {
			found = found || p == q
		}
		if !found {
			t.Errorf("page %s missing from Pages()", p)
		}
	}
	for p := range static {
		found := false
		for _, q := range Assets() {
			found = found || p == q
		}
		if !found {
			t.Errorf("asset %s missing from Assets()", p)
		}
	}
	if len(pages) != len(Pages()) || len(static) != len(Assets()) {
		t.Error("route lists and tables differ")
	}
}
