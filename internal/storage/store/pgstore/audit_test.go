package pgstore

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/testkit/audittest"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// TestAuditContract runs the audit storage contract shared with the bbolt
// store.
func TestAuditContract(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Storage {
		a, _ := openAudit(t, AuditOptions{})
		return a
	})
}

// count returns the rows of a table.
func count(t testing.TB, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// appendPairs appends n entries with their usage records, made at at.
func appendPairs(t testing.TB, rec *audit.Recorder, n int, at time.Time) {
	t.Helper()
	for i := range n {
		ts := at.Add(time.Duration(i) * time.Second)
		e := audittest.EntryAt(ts, 200)
		rec.Finish(e, audittest.UsageAt(ts, "/a", "s1", "gpt", 0.5))
	}
}

// TestRecordsQueuedWhileTheDatabaseIsAwayArriveWhenItIsBack: with the
// database unreachable, appends still return at once and records stay
// queued; when it is back they are written, once, with their aggregates.
func TestRecordsQueuedWhileTheDatabaseIsAwayArriveWhenItIsBack(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	direct := openDB(t, dsn)
	px, viaProxy := newProxy(t, dsn)
	db := openDB(t, viaProxy)
	a := NewAudit(db, AuditOptions{MaxBackoff: 200 * time.Millisecond})
	defer a.Close(context.Background())
	rec := audit.NewRecorder(a, a, nil)

	appendPairs(t, rec, 10, audittest.Base)
	audittest.Flush(t, a)
	if a.Pending() {
		t.Fatal("pending once everything is committed")
	}

	px.down()
	start := time.Now()
	appendPairs(t, rec, 50, audittest.Base.Add(time.Hour))
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("50 appends took %v with the database away", d)
	}
	time.Sleep(500 * time.Millisecond) // several failed attempts
	if q := a.Stats().Queued; q != 100 || !a.Pending() {
		t.Fatalf("%d records queued, want 100; pending %v", q, a.Pending())
	}
	if n := count(t, direct.Pool, "mg_audit_entries"); n != 10 {
		t.Fatalf("%d entries stored while away", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	if err := a.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("flush while away: %v", err)
	}
	cancel()

	px.restart()
	audittest.Flush(t, a)
	if n := count(t, direct.Pool, "mg_audit_entries"); n != 60 {
		t.Fatalf("%d entries after the database came back, want 60", n)
	}
	if n := count(t, direct.Pool, "mg_usage_records"); n != 60 {
		t.Fatalf("%d usage records after the database came back, want 60", n)
	}
	hours, _ := a.AuditHours(time.Time{}, time.Time{})
	days, _ := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	sess, _, _ := a.Sessions(audit.SessionQuery{Limit: 10})
	if len(hours) != 2 || hours[0].Requests != 10 || hours[1].Requests != 50 ||
		len(days) != 1 || days[0].Requests != 60 || len(sess) != 1 || sess[0].Requests != 60 {
		t.Fatalf("aggregates: hours %+v, days %+v, sessions %+v", hours, days, sess)
	}
	if e, u := rec.Dropped(); e != 0 || u != 0 || a.Stats().Queued != 0 {
		t.Fatalf("dropped %d/%d, %d still queued", e, u, a.Stats().Queued)
	}
}

// TestTerminatedBackendsAreRetried: backends killed by the server (a
// restart, a failover) fail a batch, which is retried on new connections.
func TestTerminatedBackendsAreRetried(t *testing.T) {
	a, db := openAudit(t, AuditOptions{MaxBackoff: 100 * time.Millisecond})
	rec := audit.NewRecorder(a, a, nil)
	appendPairs(t, rec, 5, audittest.Base)
	audittest.Flush(t, a)
	admin := openDB(t, pgtest.NewDatabase(t))
	var name string
	if err := db.Pool.QueryRow(context.Background(), `SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := admin.Pool.Exec(context.Background(),
			`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
			t.Fatal(err)
		}
		appendPairs(t, rec, 5, audittest.Base.Add(time.Hour))
	}
	audittest.Flush(t, a)
	if n := count(t, db.Pool, "mg_audit_entries"); n != 20 {
		t.Fatalf("%d entries, want 20", n)
	}
	days, _ := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	if len(days) != 1 || days[0].Requests != 20 {
		t.Fatalf("days = %+v", days)
	}
}

// TestRecordsPastTheBoundAreDroppedAndCounted: with the database away,
// the queue fills to its bound; further appends are refused at once and
// counted by the recorder (the audit drop metric) and the storage.
func TestRecordsPastTheBoundAreDroppedAndCounted(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	direct := openDB(t, dsn)
	px, viaProxy := newProxy(t, dsn)
	db := openDB(t, viaProxy)
	a := NewAudit(db, AuditOptions{QueueSize: 30, MaxBackoff: 100 * time.Millisecond})
	defer a.Close(context.Background())
	rec := audit.NewRecorder(a, a, nil)

	px.down()
	appendPairs(t, rec, 25, audittest.Base) // 50 records: 30 fit
	e, u := rec.Dropped()
	if e != 10 || u != 10 {
		t.Fatalf("recorder dropped %d entries, %d usage records; want 10 and 10", e, u)
	}
	if st := a.Stats(); st.Dropped != 20 || st.Queued != 30 {
		t.Fatalf("stats = %+v", st)
	}
	px.restart()
	audittest.Flush(t, a)
	if n := count(t, direct.Pool, "mg_audit_entries") + count(t, direct.Pool, "mg_usage_records"); n != 30 {
		t.Fatalf("%d records stored, want the 30 queued", n)
	}
}

// TestCloseWhileAwayGivesUp: Close returns when its context ends even if
// the database never comes back, and refuses appends afterwards.
func TestCloseWhileAwayGivesUp(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	px, viaProxy := newProxy(t, dsn)
	db := openDB(t, viaProxy)
	a := NewAudit(db, AuditOptions{})
	px.down()
	audittest.MustAppend(t, a, audittest.EntryAt(audittest.Base, 200))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := a.Close(ctx); err == nil {
		t.Fatal("close while away reported no loss")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("close took %v", d)
	}
	if a.AppendEntry(audittest.EntryAt(audittest.Base, 200)) {
		t.Fatal("append after close accepted")
	}
}

// TestRefusedRecordIsGivenUpAlone: a record the database refuses is
// dropped and counted; the rest of its batch is written.
func TestRefusedRecordIsGivenUpAlone(t *testing.T) {
	a, db := openAudit(t, AuditOptions{})
	if _, err := db.Pool.Exec(context.Background(), `ALTER TABLE mg_usage_records ADD CHECK (user_path <> '/refused')`); err != nil {
		t.Fatal(err)
	}
	audittest.MustAppend(t, a, audittest.EntryAt(audittest.Base, 200), audittest.EntryAt(audittest.Base, 200))
	audittest.MustAppendUsage(t, a, audittest.UsageAt(audittest.Base, "/ok", "s", "m", 1),
		audittest.UsageAt(audittest.Base, "/refused", "s", "m", 1), audittest.UsageAt(audittest.Base, "/ok", "s", "m", 1))
	audittest.Flush(t, a)
	if n := count(t, db.Pool, "mg_audit_entries"); n != 2 {
		t.Fatalf("%d entries", n)
	}
	if n := count(t, db.Pool, "mg_usage_records"); n != 2 {
		t.Fatalf("%d usage records", n)
	}
	if r := a.Stats().Rejected; r != 1 {
		t.Fatalf("rejected = %d", r)
	}
	if d := a.Drops(); !slices.Equal(d, []store.Drop{{Kind: "usage", Reason: "integrity_violation", Count: 1}}) {
		t.Fatalf("drops = %+v", d)
	}
	if sess, _, _ := a.Sessions(audit.SessionQuery{Limit: 5}); len(sess) != 1 || sess[0].Requests != 2 {
		t.Fatalf("sessions = %+v", sess)
	}
}

// TestModelTooLongForAnIndexIsGivenUpAlone: issue 35's 40,000-character
// model (here not compressible) makes an index row PostgreSQL refuses
// (54000, program limit exceeded); that usage record is dropped and
// counted, and the records around it are written.
func TestModelTooLongForAnIndexIsGivenUpAlone(t *testing.T) {
	a, db := openAudit(t, AuditOptions{})
	var long strings.Builder
	for i := 0; long.Len() < 40_000; i++ {
		fmt.Fprintf(&long, "%x", sha256.Sum256([]byte{byte(i), byte(i >> 8)}))
	}
	audittest.MustAppendUsage(t, a, audittest.UsageAt(audittest.Base, "/ok", "s", "m", 1),
		audittest.UsageAt(audittest.Base, "/ok", "s", long.String(), 1), audittest.UsageAt(audittest.Base, "/ok", "s", "m", 1))
	audittest.Flush(t, a)
	if n := count(t, db.Pool, "mg_usage_records"); n != 2 {
		t.Fatalf("%d usage records, want the 2 good ones", n)
	}
	if d := a.Drops(); !slices.Equal(d, []store.Drop{{Kind: "usage", Reason: "limit_exceeded", Count: 1}}) {
		t.Fatalf("drops = %+v", d)
	}
}

// TestConcurrentWritersKeepExactSums: two writers over one database (two
// gateway processes) adding to the same aggregate rows at once neither
// deadlock nor lose a count.
func TestConcurrentWritersKeepExactSums(t *testing.T) {
	a, db := openAudit(t, AuditOptions{Batch: 50})
	b := NewAudit(db, AuditOptions{Batch: 50})
	defer b.Close(context.Background())
	var wg sync.WaitGroup
	for _, s := range []*Audit{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				ts := audittest.Base.Add(time.Duration(i%120) * time.Minute)
				s.AppendEntry(audittest.EntryAt(ts, 200))
				s.AppendUsage(audittest.UsageAt(ts, fmt.Sprintf("/p%d", i%3), fmt.Sprintf("s%d", i%5), "m", 1))
			}
		}()
	}
	wg.Wait()
	audittest.Flush(t, a)
	audittest.Flush(t, b)
	hours, _ := a.AuditHours(time.Time{}, time.Time{})
	days, _ := a.UsageAggregates(audit.Daily, time.Time{}, time.Time{})
	sess, _, _ := a.Sessions(audit.SessionQuery{Limit: 100})
	var h, d, s int64
	for _, r := range hours {
		h += r.Requests
	}
	for _, r := range days {
		d += r.Requests
	}
	for _, r := range sess {
		s += r.Requests
	}
	if h != 2000 || d != 2000 || s != 2000 {
		t.Fatalf("sums: audit hours %d, usage days %d, sessions %d; want 2000", h, d, s)
	}
}

// TestTrickleIsWrittenWithoutWaitingForAFullBatch: records arriving one
// at a time, more often than the flush interval, are written within about
// that interval while they keep coming, not held until a batch fills.
func TestTrickleIsWrittenWithoutWaitingForAFullBatch(t *testing.T) {
	a, db := openAudit(t, AuditOptions{FlushInterval: 200 * time.Millisecond, Batch: 1 << 20})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			a.AppendEntry(audittest.EntryAt(audittest.Base.Add(time.Duration(i)*time.Second), 200))
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { close(stop); <-done }()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if count(t, db.Pool, "mg_audit_entries") > 0 {
			return
		}
	}
	t.Fatal("nothing written in 3 s while records kept arriving")
}
