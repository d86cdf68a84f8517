package boltstore

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// TestBodiesPackedAsTaken: entries whose bodies compress hold their
// compressed size once the writer takes them, so 64 entries with 64 KiB
// bodies (4 MiB as recorded, twice the byte budget) wait for the tick in
// one batch, while bodies that do not compress still cut a commit at the
// byte budget. Every body reads back as recorded.
func TestBodiesPackedAsTaken(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        func() json.RawMessage
		earlyCommit bool
	}{
		{"compressible", func() json.RawMessage { return conversationBody(400) }, false},
		{"random", func() json.RawMessage { return randomBody(64 << 10) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "pack.db"), NoSync: true,
					FlushInterval: time.Hour, MaxBatchBytes: 2 << 20})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				a := NewAudit(s)
				var es []*audit.Entry
				for i := range 64 {
					e := entryAt(base.Add(time.Duration(i)*time.Second), 200)
					e.Data.RequestBody = tc.body()
					es = append(es, e)
					mustAppend(t, a, e)
				}
				time.Sleep(time.Hour - time.Nanosecond) // bubble time: just short of the tick
				synctest.Wait()
				if early := s.Stats().Batches > 0; early != tc.earlyCommit {
					t.Fatalf("batches before the tick: %d, want early commit %v", s.Stats().Batches, tc.earlyCommit)
				}
				time.Sleep(time.Nanosecond) // the tick
				synctest.Wait()
				if n := s.Stats().Batches; !tc.earlyCommit && n != 1 {
					t.Fatalf("%d batches at the tick, want the 64 entries in 1", n)
				}
				flush(t, s)
				for _, e := range es {
					got, err := a.Entry(e.ID)
					if err != nil {
						t.Fatal(err)
					}
					if string(got.Data.RequestBody) != string(e.Data.RequestBody) ||
						string(got.Data.Attempts[0].ResponseBody) != string(e.Data.Attempts[0].ResponseBody) {
						t.Fatalf("entry %s: bodies do not read back", e.ID)
					}
				}
			})
		})
	}
}

// failEndBatch is a batch hook that fails the transactions of the first
// n batches' tries.
type failEndBatch struct{ left atomic.Int64 }

func (f *failEndBatch) BeginBatch() {}
func (f *failEndBatch) BatchDone()  {}
func (f *failEndBatch) EndBatch(*bbolt.Tx) error {
	if f.left.Add(-1) >= 0 {
		return errors.New("disk full")
	}
	return nil
}

// TestBodiesSurviveARetriedCommit: the chunks packed as entries were
// taken are written again when the batch's first commits fail.
func TestBodiesSurviveARetriedCommit(t *testing.T) {
	s, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "retry.db"), NoSync: true,
		FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	a := NewAudit(s)
	fail := &failEndBatch{}
	fail.left.Store(2)
	s.OnBatch(fail)
	big, small := entryAt(base, 200), entryAt(base.Add(time.Second), 200)
	big.Data.RequestBody = conversationBody(600)
	mustAppend(t, a, big, small)
	flush(t, s)
	if st := s.Stats(); st.Retries != 2 || st.Committed != 2 {
		t.Fatalf("stats %+v, want 2 entries committed after 2 retries", st)
	}
	for _, e := range []*audit.Entry{big, small} {
		got, err := a.Entry(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Data.RequestBody) != string(e.Data.RequestBody) {
			t.Fatalf("entry %s: request body lost in the retry", e.ID)
		}
	}
}
