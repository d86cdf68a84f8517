package e2e

// Audit and usage on PostgreSQL: with `storage postgres`, the gateway's
// audit entries and usage records land in the database, and the admin
// reads show those of every process writing to it.

import (
	"context"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/testkit/audittest"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

func TestAuditOnPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	clearEnv(t)
	g := startGateway(t, mockBlock("storage postgres "+dsn+"\n"))
	for range 3 {
		if res := chatAs(t, g, "/team/a"); res.Status != 200 {
			t.Fatalf("chat: %d %s", res.Status, res.Body)
		}
	}
	// A reload closes the old writer (flushing it) and starts another.
	if err := g.reload(t, mockBlock("storage postgres "+dsn+"\nadmin {\n live_logs_enabled true\n}\n")); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, g.URL)
	if res := chatAs(t, g, "/team/a"); res.Status != 200 {
		t.Fatalf("chat after reload: %d %s", res.Status, res.Body)
	}
	st := activeApp(t).AuditStorage()
	if _, ok := st.(*pgstore.Audit); !ok {
		t.Fatalf("audit storage is %T, want PostgreSQL", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	// Another gateway process writing to the same database.
	db, err := pgstore.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Destruct()
	other := pgstore.NewAudit(db, pgstore.AuditOptions{})
	now := time.Now()
	e := audittest.EntryAt(now, 200)
	u := audittest.UsageAt(now, "/team/b", "sess-other", "gpt", 0.5)
	u.RequestID = e.ID
	audit.NewRecorder(other, other, nil).Finish(e, u)
	if err := other.Close(ctx); err != nil {
		t.Fatal(err)
	}

	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM mg_audit_entries`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("%d entries in PostgreSQL (%v), want 5", n, err)
	}
	m := adminCall(t, g, "GET", "/admin/usage/summary?days=1", "").JSON(t)
	if m["total_requests"] != 5.0 {
		t.Fatalf("summary over both processes: %v", m)
	}
	log := adminCall(t, g, "GET", "/admin/audit/log?limit=10", "").JSON(t)
	if log["total"] != 5.0 || len(log["entries"].([]any)) != 5 {
		t.Fatalf("audit log over both processes: total %v, %d entries", log["total"], len(log["entries"].([]any)))
	}

	// A path and the paths below it, at a segment boundary: /team/a holds
	// the four requests and the other process's entry.
	for _, p := range []string{"/team/a/x", "/team/ab"} {
		if res := chatAs(t, g, p); res.Status != 200 {
			t.Fatalf("chat %s: %d %s", p, res.Status, res.Body)
		}
	}
	if err := activeApp(t).AuditStorage().Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]float64{"user_path_under=/team/a": 6, "user_path=/team/a": 5, "user_path_under=/team/ab": 1, "user_path_under=/": 7} {
		if m := adminCall(t, g, "GET", "/admin/audit/log?"+q, "").JSON(t); m["total"] != want {
			t.Errorf("%s: total %v, want %v", q, m["total"], want)
		}
	}
}
