//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestSessionLimitsAcrossProcesses: with PostgreSQL and Redis, a session
// limit written through one process is listed and enforced by the other,
// and its deletion too (each process counting the sessions it serves).
func TestSessionLimitsAcrossProcesses(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	redisURL, prefix := redistest.New(t)
	block := strings.Join([]string{"storage postgres " + dsn, "redis " + redisURL, "master_key " + masterKey,
		"provider demo {\n type mock\n}"}, "\n")
	ps := startGatewayProcesses(t, 2, block, "MODELGATE_REDIS_PREFIX="+prefix)
	p1, p2 := ps[0].G, ps[1].G
	if res := adminCall(t, p1, "PUT", "/admin/session-limits", `{"user_path":"/shared-sessions","max_requests":1}`); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	n := 0
	poll(t, 35*time.Second, "the session limit written at p1 refuses at p2", func() bool {
		n++
		sid := "shared-" + string(rune('a'+n%26)) + time.Now().Format("150405.000000")
		if res := sessionChat(t, p2, "/shared-sessions", sid, mockChat); res.Status != 200 {
			t.Fatalf("first request: %d %s", res.Status, res.Body)
		}
		return sessionChat(t, p2, "/shared-sessions", sid, mockChat).Status == 429
	})
	if res := adminCall(t, p1, "DELETE", "/admin/session-limits", `{"user_path":"/shared-sessions"}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	poll(t, 35*time.Second, "the deletion at p1 lifts the limit at p2", func() bool {
		return strings.Contains(string(adminCall(t, p2, "GET", "/admin/session-limits", "").Body), `"limits":[]`)
	})
}
