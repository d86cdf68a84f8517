package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// rowHook is a BatchHook that, like the audit aggregates, writes once per
// batch a row keyed by a value each record of the batch carries: a record
// whose value is too long for a bbolt key fails the whole transaction at
// EndBatch, not its own Apply.
type rowHook struct {
	keys [][]byte
	txs  int
}

func (h *rowHook) BeginBatch() { h.keys = h.keys[:0]; h.txs++ }
func (h *rowHook) BatchDone()  {}
func (h *rowHook) EndBatch(tx *bbolt.Tx) error {
	b, err := tx.CreateBucketIfNotExists([]byte("rows"))
	if err != nil {
		return err
	}
	for _, k := range h.keys {
		if err := b.Put(k, []byte("sum")); err != nil {
			return fmt.Errorf("row: %w", err)
		}
	}
	return nil
}

// rowWrite is a record stored under id whose row key is rowKey.
func rowWrite(h *rowHook, id int, rowKey []byte) Write {
	return Write{Kind: "usage", Apply: func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("records"))
		if err != nil {
			return err
		}
		if err := b.Put(key(id), val(id)); err != nil {
			return err
		}
		h.keys = append(h.keys, rowKey)
		return nil
	}}
}

// TestRecordRefusedForGoodIsDroppedAlone: one record of a batch whose row
// key bbolt refuses (too large) fails the batch's transaction; the writer
// finds it, drops it alone (counted by kind and reason, logged once) and
// commits every other record of the batch, without retrying, and keeps
// committing later batches. On the original writer the batch was retried
// forever and nothing was stored from then on.
func TestRecordRefusedForGoodIsDroppedAlone(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	s := openT(t, Options{FlushInterval: time.Hour, Logger: zap.New(core)})
	h := &rowHook{}
	s.OnBatch(h)
	const n, bad = 16, 11
	for i := range n {
		rowKey := []byte(fmt.Sprintf("row-%d", i))
		if i == bad {
			rowKey = bytes.Repeat([]byte("m"), 40_000)
		}
		if !s.Enqueue(rowWrite(h, i, rowKey)) {
			t.Fatal("queue refused a write")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.Flush(ctx)
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush = %v, want the dropped record reported (not a batch retried forever)", err)
	}
	if !errors.Is(err, berrors.ErrKeyTooLarge) {
		t.Fatalf("Flush = %v, want bbolt's key too large", err)
	}
	for i := range n {
		_, ok := get(t, s, "records", key(i))
		if ok == (i == bad) {
			t.Fatalf("record %d stored = %v", i, ok)
		}
	}
	if c := count(t, s, "rows"); c != n-1 {
		t.Fatalf("%d rows, want %d: every record but the bad one adds its row", c, n-1)
	}
	st := s.Stats()
	if st.Committed != n-1 || st.Failed != 1 || st.Retries != 0 {
		t.Fatalf("stats = %+v, want %d committed, 1 failed, no retry", st, n-1)
	}
	// Bisection: the whole batch, then two halves per level down to the
	// bad record (log2(16) = 4 levels).
	if h.txs > 1+2*4 {
		t.Fatalf("%d transactions to isolate one record of %d", h.txs, n)
	}
	want := []Drop{{Kind: "usage", Reason: "key_too_large", Count: 1}}
	if got := s.Drops(); !slices.Equal(got, want) {
		t.Fatalf("drops = %+v, want %+v", got, want)
	}
	lines := logs.FilterMessageSnippet("record dropped").All()
	if len(lines) != 1 || lines[0].ContextMap()["reason"] != "key_too_large" || lines[0].ContextMap()["kind"] != "usage" {
		t.Fatalf("drop log lines = %+v, want one naming kind and reason", lines)
	}
	if n := logs.FilterMessage("batch commit failed; retrying").Len(); n != 0 {
		t.Fatalf("%d retry log lines: a record error is not retried", n)
	}

	// The writer goes on with later batches.
	for i := n; i < n+5; i++ {
		s.Enqueue(rowWrite(h, i, []byte(fmt.Sprintf("row-%d", i))))
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("later Flush = %v", err)
	}
	if c := count(t, s, "records"); c != n-1+5 {
		t.Fatalf("%d records after a later batch, want %d", c, n-1+5)
	}
}

// TestTransientFailureStillRetriedWithABadRecord: a transaction that
// fails for a reason of its own (I/O) is retried as before, and the bad
// record of the same batch is still isolated and dropped afterwards.
func TestTransientFailureStillRetriedWithABadRecord(t *testing.T) {
	fail, _ := failTx(2)
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "mixed.db"), FlushInterval: time.Millisecond}, hooks{tx: fail})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := &rowHook{}
	s.OnBatch(h)
	s.Enqueue(rowWrite(h, 0, []byte("a")))
	s.Enqueue(rowWrite(h, 1, nil)) // empty key: bbolt refuses it
	s.Enqueue(rowWrite(h, 2, []byte("c")))
	if err := s.Flush(context.Background()); err == nil {
		t.Fatal("Flush hid the dropped record")
	}
	st := s.Stats()
	if st.Committed != 2 || st.Failed != 1 || st.Retries != 2 {
		t.Fatalf("stats = %+v, want 2 committed, 1 failed after 2 retries", st)
	}
	if got := s.Drops(); len(got) != 1 || got[0].Reason != "key_required" {
		t.Fatalf("drops = %+v", got)
	}
}

// TestRejectedWritesAreCountedAsDrops: writes bbolt refuses on their own
// are counted by kind (the bucket by default) and reason.
func TestRejectedWritesAreCountedAsDrops(t *testing.T) {
	s := openT(t, Options{FlushInterval: time.Hour})
	s.Enqueue(Write{Bucket: "p", Key: nil, Value: []byte("v")})
	s.Enqueue(Write{Bucket: "p", Key: []byte("k"), Value: []byte("v")})
	s.Enqueue(Write{Kind: "entry", Bucket: "p", Key: bytes.Repeat([]byte("k"), bbolt.MaxKeySize+1), Value: []byte("v")})
	_ = s.Flush(context.Background())
	want := []Drop{{Kind: "entry", Reason: "key_too_large", Count: 1}, {Kind: "p", Reason: "key_required", Count: 1}}
	if got := s.Drops(); !slices.Equal(got, want) {
		t.Fatalf("drops = %+v, want %+v", got, want)
	}
	s.DropRecord("usage", Unstorable("encoding", errors.New("bad")))
	s.DropRecord("usage", errors.New("odd"))
	got := s.Drops()
	if !slices.Contains(got, Drop{Kind: "usage", Reason: "encoding", Count: 1}) ||
		!slices.Contains(got, Drop{Kind: "usage", Reason: "invalid", Count: 1}) {
		t.Fatalf("drops = %+v", got)
	}
}

func TestRecordReason(t *testing.T) {
	for _, c := range []struct {
		err    error
		reason string
		ok     bool
	}{
		{nil, "", false},
		{errors.New("i/o"), "", false},
		{berrors.ErrDatabaseNotOpen, "", false},
		{fmt.Errorf("row: %w", berrors.ErrKeyTooLarge), "key_too_large", true},
		{berrors.ErrValueTooLarge, "value_too_large", true},
		{fmt.Errorf("x: %w", Unstorable("encoding", errors.New("json"))), "encoding", true},
	} {
		reason, ok := RecordReason(c.err)
		if reason != c.reason || ok != c.ok {
			t.Errorf("RecordReason(%v) = %q, %v; want %q, %v", c.err, reason, ok, c.reason, c.ok)
		}
	}
	if Unstorable("x", nil) != nil {
		t.Error("Unstorable(nil) is not nil")
	}
	if !strings.Contains(Unstorable("x", errors.New("msg")).Error(), "msg") {
		t.Error("Unstorable hides the message")
	}
}
