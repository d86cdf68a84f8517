package proxy

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// anthropicList asks s for GET /v1/models?query as an Anthropic client.
func anthropicList(t *testing.T, s *Service, query string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest("GET", "/v1/models?"+query, nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	info := reqinfo.New()
	info.VirtualModels, info.UserPath = true, "/"
	req = req.WithContext(reqinfo.With(req.Context(), info))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: %v", rec.Body, err)
	}
	return rec.Code, out
}

func pageIDs(out map[string]any) string {
	var ids []string
	for _, m := range out["data"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	return strings.Join(ids, ",")
}

func TestAnthropicModelPages(t *testing.T) {
	s, _ := planService(t) // lists the virtual model fast and m1 (a policy keeps m2 from /)
	_, all := anthropicList(t, s, "")
	if pageIDs(all) != "fast,m1" || all["has_more"] != false || all["first_id"] != "fast" || all["last_id"] != "m1" {
		t.Fatalf("whole list %v", all)
	}
	for _, tc := range []struct {
		query, ids string
		more       bool
	}{
		{"limit=1", "fast", true},
		{"limit=1&after_id=fast", "m1", false},
		{"before_id=m1", "fast", false},
		{"after_id=m1", "", false},
	} {
		if code, out := anthropicList(t, s, tc.query); code != 200 || pageIDs(out) != tc.ids || out["has_more"] != tc.more {
			t.Fatalf("%s: %d %v", tc.query, code, out)
		}
	}
	code, out := anthropicList(t, s, "limit=0")
	if code != 400 || out["type"] != "error" {
		t.Fatalf("limit=0: %d %v", code, out)
	}
}
