package selfusage

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

type fakeLimits struct{ got string }

func (f *fakeLimits) RateLimitStatuses(_ context.Context, p string) []RateLimitStatus {
	f.got = p
	return []RateLimitStatus{{Scope: "user_path", Subject: p, Period: "minute", MaxRequests: 10, RequestsUsed: 3}}
}

func get(t *testing.T, h *Handler, userPath string) map[string]any {
	t.Helper()
	req := httptest.NewRequest("GET", "/v1/usage", nil)
	if userPath != "" {
		info := reqinfo.New()
		info.UserPath = userPath
		req = req.WithContext(reqinfo.With(req.Context(), info))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEmpty(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	m := get(t, &Handler{Now: func() time.Time { return now }}, "")
	if m["user_path"] != "/" || m["server_time"] != "2026-05-01T09:00:00Z" || m["usage"] != nil {
		t.Fatalf("%v", m)
	}
	if b, ok := m["budgets"].([]any); !ok || len(b) != 0 {
		t.Fatalf("budgets %v", m["budgets"])
	}
	if r, ok := m["rate_limits"].([]any); !ok || len(r) != 0 {
		t.Fatalf("rate_limits %v", m["rate_limits"])
	}
	if len(m) != 5 {
		t.Fatalf("fields %v", m)
	}
}

func TestProviders(t *testing.T) {
	f := &fakeLimits{}
	m := get(t, &Handler{RateLimits: f}, "/team/alpha")
	if m["user_path"] != "/team/alpha" || f.got != "/team/alpha" {
		t.Fatalf("%v, provider asked for %q", m, f.got)
	}
	rl := m["rate_limits"].([]any)
	if len(rl) != 1 || rl[0].(map[string]any)["requests_used"] != 3.0 {
		t.Fatalf("%v", rl)
	}
}

func TestMethod(t *testing.T) {
	rec := httptest.NewRecorder()
	(&Handler{}).ServeHTTP(rec, httptest.NewRequest("POST", "/v1/usage", nil))
	if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Fatalf("%d %v", rec.Code, rec.Header())
	}
}
