package e2e

import (
	"context"
	"testing"
)

// TestAuditStatsLatencyOnlyProviderAnswers: the provider latency of the
// request statistics covers only successful requests a provider answered.
// count_tokens on a provider without a native counter is answered by the
// gateway's own estimate: its entry names the provider the model resolved
// to, yet it must not enter that provider's latency, nor may a
// response-cache hit.
func TestAuditStatsLatencyOnlyProviderAnswers(t *testing.T) {
	clearEnv(t)
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	g := startGateway(t, mockBlock(""))
	if res := chatAs(t, g, "/"); res.Status != 200 {
		t.Fatalf("chat %d %s", res.Status, res.Body)
	}
	if res := chatAs(t, g, "/"); res.Status != 200 || res.Header.Get("X-Modelgate-Cache") != "hit" {
		t.Fatalf("second chat %d %v %s", res.Status, res.Header, res.Body)
	}
	for range 3 {
		res := request(t, "POST", g.URL+"/v1/messages/count_tokens", mockChat, bearer(masterKey)...)
		if res.Status != 200 || res.Header.Get("X-Modelgate-Token-Count") != "estimate" {
			t.Fatalf("count_tokens %d %v %s", res.Status, res.Header, res.Body)
		}
	}
	if err := activeApp(t).AuditStorage().Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := adminCall(t, g, "GET", "/admin/audit/stats?days=1", "").JSON(t)
	if s := m["summary"].(map[string]any); s["requests"] != 5.0 || s["status_2xx"] != 5.0 {
		t.Fatalf("summary %v", s)
	}
	lat := m["provider_latency"].([]any)
	if len(lat) != 1 {
		t.Fatalf("provider_latency %v", lat)
	}
	covered := 0.0
	for _, n := range lat[0].(map[string]any)["requests"].([]any) {
		covered += n.(float64)
	}
	if covered != 1 {
		t.Fatalf("latency covers %v requests, want the one the provider answered: %v", covered, lat)
	}
}
