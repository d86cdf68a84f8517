package admin

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/config"
	"github.com/modelgate/modelgate/proxy"
	"github.com/modelgate/modelgate/selfusage"
)

// pathParam matches a {name} segment of a documented path.
var pathParam = regexp.MustCompile(`\{[^/{}]+\}`)

// fetchDoc gets /admin/openapi.json from h and decodes it.
func fetchDoc(t *testing.T, h *Handler) map[string]any {
	t.Helper()
	res := do(h, "GET", "/admin/openapi.json", "")
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	return res.json(t)
}

func docOps(doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			out[strings.ToUpper(method)+" "+path] = op.(map[string]any)
		}
	}
	return out
}

// TestOpenAPIMatchesRoutes: the document lists exactly the admin routes,
// the model routes of package proxy, GET /v1/usage and the dashboard, and
// every admin operation it lists is answered by the handler.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.LegacyAlias = config.LegacyAliasOn })
	doc := fetchDoc(t, h)
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "1.0" {
		t.Fatalf("header %v %v", doc["openapi"], doc["info"])
	}
	ops := docOps(doc)
	want := map[string]bool{"GET " + selfusage.Path: true, "GET /admin/dashboard": true, "GET /admin/dashboard/audit": true,
		"GET /admin/static/modelgate.css": true, "GET /admin/api/v1/dashboard/config": true}
	for _, r := range proxy.Routes() {
		want[r.Method+" "+r.Path] = true
	}
	for _, r := range Routes() {
		want[r.Method+" "+r.Path] = true
		want[r.Method+" "+LegacyPrefix+strings.TrimPrefix(r.Path, Prefix)] = true
	}
	for k := range want {
		if ops[k] == nil {
			t.Errorf("document lacks %s", k)
		}
	}
	for k := range ops {
		if !want[k] {
			t.Errorf("document lists %s, which is not served", k)
		}
	}
	ids := map[string]bool{}
	for k, op := range ops {
		id, _ := op["operationId"].(string)
		if id == "" || ids[id] {
			t.Errorf("%s: operationId %q missing or repeated", k, id)
		}
		ids[id] = true
		if op["responses"] == nil {
			t.Errorf("%s: no responses", k)
		}
		if strings.Contains(k, "{id}") {
			ps, _ := op["parameters"].([]any)
			if len(ps) == 0 || ps[0].(map[string]any)["in"] != "path" {
				t.Errorf("%s: path parameter not described", k)
			}
		}
		method, path, _ := strings.Cut(k, " ")
		if !strings.HasPrefix(path, "/admin/") {
			continue // model routes: checked end to end against the running server
		}
		res := do(h, method, pathParam.ReplaceAllString(path, "x"), "")
		if res.status == http.StatusMethodNotAllowed || (res.status == 404 && strings.Contains(string(res.body), "unknown_route")) {
			t.Errorf("%s is documented but answers %d %s", k, res.status, res.body)
		}
	}
	if ops["POST /admin/auth-keys"]["requestBody"] == nil || ops["PATCH /admin/auth-keys/{id}"]["requestBody"] == nil {
		t.Error("request bodies missing")
	}
	if ops["GET /admin/api/v1/auth-keys"]["deprecated"] != true {
		t.Error("legacy operation not deprecated")
	}
	if sec, ok := ops["GET /admin/dashboard"]["security"].([]any); !ok || len(sec) != 0 {
		t.Error("dashboard page not marked public")
	}
	if sec, ok := ops["GET /health"]["security"].([]any); ops["GET /health"] != nil && (!ok || len(sec) != 0) {
		t.Error("health not marked public")
	}
	scheme := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)["bearerAuth"].(map[string]any)
	if scheme["type"] != "http" || scheme["scheme"] != "bearer" || scheme["bearerFormat"] != "JWT" {
		t.Errorf("bearer scheme %v", scheme)
	}
	// Every $ref resolves.
	body, _ := json.Marshal(doc)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, part := range strings.Split(string(body), `"$ref":"#/components/schemas/`)[1:] {
		name := part[:strings.IndexByte(part, '"')]
		if schemas[name] == nil {
			t.Errorf("dangling $ref %s", name)
		}
	}
}

func TestOpenAPIFollowsSwitches(t *testing.T) {
	h, clk := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.UIEnabled = config.Ptr(false) })
	clk.now = LegacySunset // auto mode, past the sunset
	ops := docOps(fetchDoc(t, h))
	for k := range ops {
		if strings.HasPrefix(k, "GET /admin/dashboard") || strings.Contains(k, "/admin/api/v1/") || strings.Contains(k, "/admin/static/") {
			t.Errorf("%s listed though not served", k)
		}
	}
	clk.now = LegacySunset.Add(-1)
	if ops := docOps(fetchDoc(t, h)); ops["GET /admin/api/v1/auth-keys"] == nil {
		t.Error("legacy alias not listed before the sunset")
	}
}
