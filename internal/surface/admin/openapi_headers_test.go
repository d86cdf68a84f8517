package admin

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestOpenAPIResponseHeaders: every answer on the legacy alias documents
// Deprecation, Sunset (the alias's date) and Link; every 429 Retry-After;
// the successful answer of a rate-limited route the x-ratelimit-*
// values; and every header and response reference resolves.
func TestOpenAPIResponseHeaders(t *testing.T) {
	h, _ := newTestHandler(t, func(c *config.Config, _ *Options) { c.Admin.LegacyAlias = config.LegacyAliasOn })
	doc := fetchDoc(t, h)
	ops := docOps(doc)
	headersOf := func(key, status string) map[string]any {
		t.Helper()
		r, _ := ops[key]["responses"].(map[string]any)[status].(map[string]any)
		hs, _ := r["headers"].(map[string]any)
		return hs
	}
	for _, name := range []string{"Deprecation", "Sunset", "Link"} {
		if headersOf("GET /admin/api/v1/auth-keys", "200")[name] == nil {
			t.Errorf("legacy 200 lacks %s", name)
		}
	}
	for status, want := range map[string]string{"401": "LegacyError", "403": "LegacyError", "410": "LegacyError"} {
		if got := errorRef(t, ops, "GET /admin/api/v1/auth-keys", status); got != "#/components/responses/"+want {
			t.Errorf("legacy %s: %s", status, got)
		}
	}
	for key, want := range map[string]string{"POST /v1/chat/completions": "RateLimited", "POST /v1/messages": "AnthropicRateLimited",
		"POST /v1/batches": "RateLimited"} {
		if got := errorRef(t, ops, key, "429"); got != "#/components/responses/"+want {
			t.Errorf("%s 429: %s", key, got)
		}
	}
	comps := doc["components"].(map[string]any)
	if headersOf("POST /v1/chat/completions", "200")["X-Ratelimit-Remaining-Requests"] == nil {
		t.Error("chat 200 lacks the x-ratelimit headers")
	}
	limited := comps["responses"].(map[string]any)["RateLimited"].(map[string]any)["headers"].(map[string]any)
	for _, name := range []string{"Retry-After", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Remaining-Concurrency"} {
		if limited[name] == nil {
			t.Errorf("a 429 does not document %s", name)
		}
	}
	if headersOf("GET /v1/models", "200") != nil || headersOf("GET /admin/auth-keys", "200") != nil {
		t.Error("headers on a route that is neither rate-limited nor legacy")
	}
	sunset := comps["headers"].(map[string]any)["Sunset"].(map[string]any)["schema"].(map[string]any)["const"]
	if sunset != LegacySunset.Format(http.TimeFormat) {
		t.Errorf("Sunset documented as %v", sunset)
	}
	body, _ := json.Marshal(doc)
	for _, kind := range []string{"headers", "responses"} {
		named := comps[kind].(map[string]any)
		for _, part := range strings.Split(string(body), `"$ref":"#/components/`+kind+`/`)[1:] {
			if name := part[:strings.IndexByte(part, '"')]; named[name] == nil {
				t.Errorf("dangling $ref to %s %s", kind, name)
			}
		}
	}
}
