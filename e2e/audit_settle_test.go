package e2e

import (
	"fmt"
	"testing"
)

// A read of the audit log or of usage includes every request answered
// before it, although the store writes records in batches: each read
// first commits what is still queued. The reads here follow each request
// at once, well within the store's flush interval.
func TestReadsIncludeTheRequestJustAnswered(t *testing.T) {
	g := startMockGateway(t)
	for i := 1; i <= 3; i++ {
		path := fmt.Sprintf("/settle/%d", i)
		if res := chatAs(t, g, path); res.Status != 200 {
			t.Fatalf("chat %d %s", res.Status, res.Body)
		}
		log := adminCall(t, g, "GET", "/admin/audit/log?user_path="+path, "").JSON(t)
		entries, _ := log["entries"].([]any)
		if log["total"] != 1.0 || len(entries) != 1 {
			t.Fatalf("request %d: the log lists %v", i, log)
		}
		id, _ := entries[0].(map[string]any)["id"].(string)
		if res := adminCall(t, g, "GET", "/admin/audit/log/"+id, ""); res.Status != 200 {
			t.Fatalf("request %d: entry %s: %d %s", i, id, res.Status, res.Body)
		}
		sum := adminCall(t, g, "GET", "/admin/usage/summary", "").JSON(t)
		if sum["total_requests"] != float64(i) {
			t.Fatalf("request %d: usage summary %v", i, sum)
		}
		stats := adminCall(t, g, "GET", "/admin/audit/stats?days=1", "").JSON(t)
		counted := 0.0
		for _, b := range stats["buckets"].([]any) {
			counted += b.(map[string]any)["requests"].(float64)
		}
		if counted != float64(i) {
			t.Fatalf("request %d: stats count %v requests", i, counted)
		}
		mine := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, path)...).JSON(t)
		today, _ := mine["usage"].(map[string]any)["today"].(map[string]any)
		if today["requests"] != 1.0 {
			t.Fatalf("request %d: GET /v1/usage today %v", i, today)
		}
	}
}
