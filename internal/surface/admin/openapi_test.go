package admin

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/routes"
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

// TestOpenAPIMatchesRoutes: the document lists exactly the served routes
// of the route table (model endpoints, GET /v1/usage, /health, the admin
// API and its legacy alias, the dashboard), each with its credential, and
// every admin operation it lists is answered by the handler.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.LegacyAlias = config.LegacyAliasOn })
	doc := fetchDoc(t, h)
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "1.0" {
		t.Fatalf("header %v %v", doc["openapi"], doc["info"])
	}
	ops := docOps(doc)
	want := map[string]bool{"GET /admin/api/v1/dashboard/config": true}
	for _, r := range routes.All() {
		if !r.Documented() {
			if ops[r.Method+" "+r.Path] != nil {
				t.Errorf("%s %s is listed but not served", r.Method, r.Path)
			}
			continue
		}
		if r.Shape == routes.ShapeAdmin {
			want[r.Method+" "+LegacyPrefix+strings.TrimPrefix(r.Path, Prefix)] = true
		}
		// A final /* is documented as a {path} parameter, a route of any
		// method as one operation per method.
		for _, o := range operationsOf(&r) {
			k := o.Method + " " + o.Path
			want[k] = true
			// The credential flag: public routes carry an empty security
			// list, the others the document's default and a 401.
			op := ops[k]
			if op == nil {
				continue
			}
			sec, hasSec := op["security"].([]any)
			public := hasSec && len(sec) == 0
			_, has401 := op["responses"].(map[string]any)["401"]
			if public != (r.Credential == routes.CredentialNone) || has401 == public {
				t.Errorf("%s: credential %s documented as public=%v, 401=%v", k, r.Credential, public, has401)
			}
			// A 403 comes with admin access, or is one of the route's own
			// refusals (a model the caller may not use, another site's page).
			want403 := r.Credential == routes.CredentialAdmin || slices.Contains(r.Doc.Errors, http.StatusForbidden)
			if _, has403 := op["responses"].(map[string]any)["403"]; has403 != want403 {
				t.Errorf("%s: credential %s, 403 documented %v", k, r.Credential, has403)
			}
		}
	}
	for _, k := range []string{"GET /v1/usage", "POST /v1/chat/completions", "POST /v1/messages/count_tokens", "GET /health",
		"GET /admin/dashboard", "GET /admin/dashboard/audit", "GET /admin/static/modelgate.css", "PATCH /admin/auth-keys/{id}",
		"POST /v1/batches", "POST /v1/files", "GET /v1/realtime"} {
		if !want[k] {
			t.Errorf("the route table does not serve %s", k)
		}
	}
	for _, k := range []string{} {
		if want[k] || ops[k] != nil {
			t.Errorf("%s is not served yet but listed", k)
		}
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

// TestOpenAPIModelSchemas: the model object carries the catalog's
// metadata, with every field of the model metadata, pricing, pricing
// tier and ranking objects.
func TestOpenAPIModelSchemas(t *testing.T) {
	s := components()
	props := func(name string) map[string]any {
		t.Helper()
		sc, _ := s[name].(schema)
		p, ok := sc["properties"].(schema)
		if !ok {
			t.Fatalf("schema %s has no properties", name)
		}
		return p
	}
	if _, ok := props("Model")["metadata"]; !ok {
		t.Error("Model has no metadata")
	}
	for name, fields := range map[string][]string{
		"ModelMetadata": {"capabilities", "categories", "context_window", "description", "display_name", "family",
			"max_output_tokens", "modes", "pricing", "pricing_sources", "rankings", "tags"},
		"Pricing": {"audio_input_per_mtok", "audio_output_per_mtok", "batch_input_per_mtok", "batch_output_per_mtok",
			"cache_write_per_mtok", "cached_input_per_mtok", "currency", "input_per_image", "input_per_mtok", "output_per_mtok",
			"per_character_input", "per_image", "per_page", "per_request", "per_second_input", "per_second_output",
			"reasoning_output_per_mtok", "tiers"},
		"PricingTier": {"input_per_mtok", "output_per_mtok", "up_to_mtok", "up_to_tokens"},
		"Ranking":     {"as_of", "elo", "rank"},
	} {
		p := props(name)
		for _, f := range fields {
			if _, ok := p[f]; !ok {
				t.Errorf("%s has no %s", name, f)
			}
		}
	}
}

// TestOpenAPIAuditSchemas: the audit entry, its usage and data objects,
// an attempt, a session row and the self-usage totals list every field
// of the spec's tables, typed as served.
func TestOpenAPIAuditSchemas(t *testing.T) {
	s := components()
	props := func(sc any, path ...string) schema {
		t.Helper()
		cur, _ := sc.(schema)
		for _, p := range path {
			next, _ := cur["properties"].(schema)[p].(schema)
			if items, ok := next["items"].(schema); ok {
				next = items
			}
			cur = next
		}
		p, ok := cur["properties"].(schema)
		if !ok {
			t.Fatalf("%v has no properties", path)
		}
		return p
	}
	for _, c := range []struct {
		name   string
		path   []string
		fields string
	}{
		{"AuditEntry", nil, "alias_used auth_key_id auth_method bodies_omitted cache_type client_ip conversation_payload data duration_ns error_type " +
			"id method path principal_id provider provider_name request_id requested_model resolved_model secrets_redacted session_id status_code stream timestamp usage user_path workflow_version_id"},
		{"AuditEntry", []string{"usage"}, "cache_write_input_tokens cached_input_ratio cached_input_tokens entries estimated_cached_characters input_tokens " +
			"output_tokens rewrite_cost_saved rewrite_tokens_saved total_tokens uncached_input_tokens"},
		{"AuditEntry", []string{"data"}, "api_key_hash attempts error_code error_message event_type failover labels max_tokens request_body " +
			"request_body_too_big_to_handle request_headers request_revisions response_body response_body_too_big_to_handle response_headers temperature user_agent workflow_features"},
		{"AuditEntry", []string{"data", "attempts"}, "duration_ns error_code error_message error_type kind model provider_name provider_type response_body response_headers seq started_at status_code success"},
		{"AuditEntry", []string{"data", "request_revisions"}, "body bytes_after bytes_before detail no_change rewriter seq tokens_saved"},
		{"AuditEntry", []string{"data", "workflow_features"}, "audit budget cache failover guardrails usage"},
		{"UsageSession", nil, "session_id user_path requests input_tokens output_tokens total_tokens cached_input_tokens cache_write_input_tokens reasoning_tokens cost cache_hits"},
		{"UsageTotals", nil, "since requests input_tokens output_tokens total_tokens cached_input_tokens reasoning_tokens cost"},
	} {
		p := props(s[c.name], c.path...)
		for _, f := range strings.Fields(c.fields) {
			if _, ok := p[f]; !ok {
				t.Errorf("%s %v has no %s", c.name, c.path, f)
			}
		}
	}
	if typ := props(s["AuditEntry"])["id"].(schema)["type"]; typ != "string" {
		t.Errorf("an entry id is typed %v", typ)
	}
	if typ := props(s["AuditEntry"])["timestamp"].(schema)["format"]; typ != "date-time" {
		t.Errorf("a timestamp is formatted %v", typ)
	}
}
