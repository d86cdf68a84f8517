package e2e

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestRLWindowsSurviveRestart: an hourly window, a manual rule and a
// reset-one survive a stop and start, and a config reload; with
// RATE_LIMITS_FLUSH_INTERVAL=0 the counters are still written at the
// clean stop and loaded at start.
func TestRLWindowsSurviveRestart(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "rph=5")
	block := mockBlock("storage " + filepath.Join(t.TempDir(), "rl-restart.db"))
	g := startGateway(t, block)
	for _, body := range []string{
		`{"user_path":"/ops","period":"hour","max_requests":4}`,
		`{"user_path":"/reset","period":"day","max_requests":10}`,
		`{"scope":"provider","subject":"demo","period_seconds":7200,"max_requests":1000}`,
	} {
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status != 200 {
			t.Fatalf("%s: %d %s", body, res.Status, res.Body)
		}
	}
	for path, n := range map[string]int{"/team/a": 3, "/ops": 2, "/reset/x": 4} {
		for i := 0; i < n; i++ {
			if res := chatAs(t, g, path); res.Status != 200 {
				t.Fatalf("%s: %d %s", path, res.Status, res.Body)
			}
		}
	}
	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"user_path":"/reset","period":"day"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}

	g = restartGateway(t, block)
	for _, c := range []struct {
		scope, subject, period string
		want                   float64
	}{
		{"user_path", "/team", "hour", 3}, {"user_path", "/ops", "hour", 2},
		{"user_path", "/reset", "day", 0}, {"provider", "demo", "7200s", 9},
	} {
		if got := rateUsed(t, g, c.scope, c.subject, c.period); got != c.want {
			t.Fatalf("after restart, %s %s per %s: %v requests, want %v", c.scope, c.subject, c.period, got, c.want)
		}
	}
	t.Logf("after restart: /team hourly window holds 3 of 5, the reset /reset window 0")
	for i := 0; i < 2; i++ {
		if res := chatAs(t, g, "/team/b"); res.Status != 200 {
			t.Fatalf("after restart %d: %d %s", i, res.Status, res.Body)
		}
	}
	chatAs(t, g, "/team/c").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")

	// A reload keeps the counters (the engine is shared by both configs).
	if err := g.reload(t, block+"\nuser_path_header X-Modelgate-User-Path\n"); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	waitHealthy(t, g.URL)
	if got := rateUsed(t, g, "user_path", "/team", "hour"); got != 5 {
		t.Fatalf("after reload: %v", got)
	}
	chatAs(t, g, "/team/c").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")

	// Without periodic snapshots the clean stop still writes them.
	t.Setenv("RATE_LIMITS_FLUSH_INTERVAL", "0")
	g = restartGateway(t, block)
	for i := 0; i < 2; i++ {
		if res := chatAs(t, g, "/ops"); res.Status != 200 {
			t.Fatalf("/ops %d: %d %s", i, res.Status, res.Body)
		}
	}
	g = restartGateway(t, block)
	if got := rateUsed(t, g, "user_path", "/ops", "hour"); got != 4 {
		t.Fatalf("flush interval 0, after restart: /ops %v requests, want 4", got)
	}
	chatAs(t, g, "/ops").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
}
