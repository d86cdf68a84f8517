package pgstore

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// TestCostNanosMigration: the aggregate and session rows of a database
// made before version 3 of the audit schema, whose cost sums are float
// USD, read as whole Nanos once migrated: a drifted float sum rounds to
// the exact one, and a saturated one stays at the largest.
func TestCostNanosMigration(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The audit schema as versions 1 and 2 left it.
	if _, err := conn.Exec(ctx, `CREATE TABLE modelgate_migrations (
		domain text NOT NULL, version int NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (domain, version))`); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		if m.domain != "audit" || m.version > 2 {
			continue
		}
		if _, err := conn.Exec(ctx, m.sql); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO modelgate_migrations (domain, version) VALUES ('audit', $1)`, m.version); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)
	for _, table := range []string{"mg_usage_hours", "mg_usage_days"} {
		if _, err := conn.Exec(ctx, `INSERT INTO `+table+` VALUES
			($1, '/a', 'p', 'm', 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 1.3000000000117504),
			($1, '/b', 'p', 'm', 2, 0, 0, 0, 0, 0, 0, 0, 0, 1.7976931348623157e308)`, start); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO mg_usage_sessions VALUES
		('/a', 's1', $1, $1, 2, 0, 0, 0, 0, 0, 0, 0, 1.0499999999999998, ARRAY['m'])`, start); err != nil {
		t.Fatal(err)
	}

	a := NewAudit(openTestDB(t, dsn), AuditOptions{})
	t.Cleanup(func() { _ = a.Close(ctx) })
	for _, g := range []audit.Granularity{audit.Hourly, audit.Daily} {
		rows, err := a.UsageAggregates(g, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Cost != 1_300_000_000 || rows[1].Cost != math.MaxInt64 || rows[0].Requests != 1000000 {
			t.Fatalf("%v rows after the migration: %+v", g, rows)
		}
	}
	sess, _, err := a.Sessions(audit.SessionQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(sess) != 1 || sess[0].Cost != 1_050_000_000 {
		t.Fatalf("sessions after the migration: %+v", sess)
	}
}

// TestAuditBodiesCompressLZ4: the body columns of the audit entries are
// compressed with LZ4 where the server has it (PostgreSQL 14 and later,
// built with it, as Debian's is), not with the default pglz, which costs
// the server ten times the CPU on a large prompt.
func TestAuditBodiesCompressLZ4(t *testing.T) {
	db, _ := newTestDB(t)
	a := NewAudit(db, AuditOptions{})
	defer a.Close(context.Background())
	ctx := context.Background()
	var lz4 bool
	if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if !lz4 {
		t.Skip("this PostgreSQL server has no LZ4")
	}
	rows, err := db.Pool.Query(ctx, `SELECT attname, attcompression::text FROM pg_attribute
		WHERE attrelid = 'mg_audit_entries'::regclass AND attname IN ('bodies', 'request_body')`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var name, c string
		if err := rows.Scan(&name, &c); err != nil {
			t.Fatal(err)
		}
		got[name] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got["bodies"] != "l" || got["request_body"] != "l" {
		t.Fatalf("compression of the body columns: %v, want l (lz4) for both", got)
	}
}
