package e2e

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// pathParam matches a {name} segment of a documented path.
var pathParam = regexp.MustCompile(`\{[^/{}]+\}`)

// TestAccessOpenAPIMatchesServer fetches /admin/openapi.json from the
// running server and checks it against what the server answers: every
// documented operation is routed (no unknown_route, no 405), and every
// other method on a documented path is refused with 405 (or 404 for
// dashboard pages), so the document lists all methods a path serves.
func TestAccessOpenAPIMatchesServer(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock("admin {\n legacy_alias on\n}"))
	res := adminCall(t, g, "GET", "/admin/openapi.json", "")
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	doc := res.JSON(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi %v", doc["openapi"])
	}
	paths := doc["paths"].(map[string]any)
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, want := range []string{"/v1/chat/completions", "/v1/models", "/v1/usage", "/admin/auth-keys", "/admin/auth-keys/{id}",
		"/admin/runtime/config", "/admin/openapi.json", "/admin/dashboard", "/admin/static/modelgate.css", "/admin/api/v1/dashboard/config"} {
		if paths[want] == nil {
			t.Errorf("document lacks %s", want)
		}
	}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	for _, p := range names {
		item := paths[p].(map[string]any)
		url := g.URL + pathParam.ReplaceAllString(p, "x_doesnotexist")
		for _, m := range methods {
			_, documented := item[strings.ToLower(m)]
			r := request(t, m, url, "{}", bearer(masterKey)...)
			routed := r.Status != http.StatusMethodNotAllowed &&
				!(r.Status == http.StatusNotFound && strings.Contains(string(r.Body), `"unknown_route"`))
			if documented && !routed {
				t.Errorf("%s %s is documented but answers %d %s", m, p, r.Status, r.Body)
			}
			if !documented && routed {
				t.Errorf("%s %s is served (%d) but not documented", m, p, r.Status)
			}
		}
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	if b := schemes["bearerAuth"].(map[string]any); b["scheme"] != "bearer" || b["bearerFormat"] != "JWT" {
		t.Fatalf("bearer scheme %v", b)
	}
	if strings.Contains(string(res.Body), masterKey) {
		t.Fatal("document carries the master key")
	}
}
