package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.etcd.io/bbolt"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// openT opens a store in a temp dir (unless opts.Path is set) and closes it
// at cleanup.
func openT(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Path == "" {
		opts.Path = filepath.Join(t.TempDir(), "store.db")
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func key(i int) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, uint64(i))
	return k
}

func val(i int) []byte { return []byte(fmt.Sprintf("value-%d", i)) }

// get reads bucket/key, reporting whether it exists.
func get(t *testing.T, s *Store, bucket string, k []byte) ([]byte, bool) {
	t.Helper()
	var (
		out   []byte
		found bool
	)
	err := s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		if v := b.Get(k); v != nil {
			out, found = append([]byte(nil), v...), true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return out, found
}

// count returns the number of keys in bucket (0 if missing).
func count(t *testing.T, s *Store, bucket string) int {
	t.Helper()
	n := 0
	err := s.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(bucket)); b != nil {
			n = b.Stats().KeyN
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return n
}

func TestCloseReopenRoundTripAndDelete(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rt.db")
	const n = 10000
	s, err := Open(Options{Path: path, MaxBatch: 333})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		bucket := "a"
		if i%2 == 1 {
			bucket = "b"
		}
		if !s.Enqueue(Write{Bucket: bucket, Key: key(i), Value: val(i)}) {
			t.Fatalf("Enqueue %d rejected", i)
		}
	}
	// Empty non-nil value must be stored, not treated as a delete.
	s.Enqueue(Write{Bucket: "a", Key: []byte("empty"), Value: []byte{}})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st := s.Stats()
	if st.Enqueued != n+1 || st.Committed != n+1 || st.Dropped != 0 || st.Failed != 0 {
		t.Fatalf("stats after close = %+v", st)
	}
	if st.Batches < n/333 {
		t.Fatalf("Batches = %d, want >= %d with MaxBatch 333", st.Batches, n/333)
	}

	s = openT(t, Options{Path: path})
	if got, want := count(t, s, "a")+count(t, s, "b"), n+1; got != want {
		t.Fatalf("keys after reopen = %d, want %d", got, want)
	}
	for i := 0; i < n; i++ {
		bucket := "a"
		if i%2 == 1 {
			bucket = "b"
		}
		v, ok := get(t, s, bucket, key(i))
		if !ok || string(v) != string(val(i)) {
			t.Fatalf("%s/%d = %q,%v want %q", bucket, i, v, ok, val(i))
		}
	}
	if v, ok := get(t, s, "a", []byte("empty")); !ok || len(v) != 0 {
		t.Fatalf("empty value: got %q,%v", v, ok)
	}

	// Delete every even key in "a" (nil Value) and, in the same batch,
	// overwrite-then-delete a key to check ordering inside a batch.
	for i := 0; i < n; i += 2 {
		s.Enqueue(Write{Bucket: "a", Key: key(i)})
	}
	s.Enqueue(Write{Bucket: "b", Key: []byte("tmp"), Value: []byte("x")})
	s.Enqueue(Write{Bucket: "b", Key: []byte("tmp")})
	// Deleting from a bucket that does not exist must not create it.
	s.Enqueue(Write{Bucket: "never-created", Key: []byte("k")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openT(t, Options{Path: path})
	if got := count(t, s, "a"); got != 1 { // only "empty" is left
		t.Fatalf("bucket a has %d keys after deletes, want 1", got)
	}
	if got := count(t, s, "b"); got != n/2 {
		t.Fatalf("bucket b has %d keys, want %d", got, n/2)
	}
	if _, ok := get(t, s, "b", []byte("tmp")); ok {
		t.Fatal("put-then-delete in one batch left the key behind")
	}
	_ = s.View(func(tx *bbolt.Tx) error {
		if tx.Bucket([]byte("never-created")) != nil {
			t.Error("delete created a bucket")
		}
		return nil
	})
}

func TestFlushMakesWritesVisible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A huge interval and batch: only Flush can cause a commit.
		s := openT(t, Options{FlushInterval: time.Hour, MaxBatch: 1 << 20})
		for i := 0; i < 100; i++ {
			s.Enqueue(Write{Bucket: "f", Key: key(i), Value: val(i)})
		}
		time.Sleep(time.Hour - time.Nanosecond) // bubble time: just short of the tick
		synctest.Wait()                         // the writer sleeps again
		if got := count(t, s, "f"); got != 0 {
			t.Fatalf("%d keys visible before Flush; writer should still be batching", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Flush(ctx); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		if got := count(t, s, "f"); got != 100 {
			t.Fatalf("%d keys visible after Flush, want 100", got)
		}
		if st := s.Stats(); st.Committed != 100 || st.Batches != 1 {
			t.Fatalf("stats = %+v, want 100 committed in 1 batch", st)
		}
		// Flush with nothing queued returns at once and commits nothing.
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Batches != 1 {
			t.Fatalf("empty Flush committed a batch: %+v", st)
		}
	})
}

func TestFlushIntervalCommitsWithoutFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 20 * time.Millisecond
		s := openT(t, Options{FlushInterval: interval})
		s.Enqueue(Write{Bucket: "i", Key: []byte("k"), Value: []byte("v")})
		time.Sleep(interval - time.Nanosecond) // bubble time: just short of the tick
		synctest.Wait()
		if _, ok := get(t, s, "i", []byte("k")); ok {
			t.Fatal("write committed before the interval")
		}
		time.Sleep(time.Nanosecond) // the tick
		synctest.Wait()             // the writer has committed and sleeps again
		if _, ok := get(t, s, "i", []byte("k")); !ok {
			t.Fatal("write not committed by the interval timer")
		}
		if st := s.Stats(); st.Batches != 1 || st.Committed != 1 {
			t.Fatalf("stats = %+v, want 1 committed in 1 batch", st)
		}
	})
}

func TestFullBatchCommitsImmediately(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openT(t, Options{FlushInterval: time.Hour, MaxBatch: 8})
		for i := 0; i < 8; i++ {
			s.Enqueue(Write{Bucket: "m", Key: key(i), Value: val(i)})
		}
		synctest.Wait() // no bubble time has passed: only the full batch woke the writer
		if st := s.Stats(); st.Batches != 1 || st.Committed != 8 {
			t.Fatalf("full batch not committed: %+v", st)
		}
		if got := count(t, s, "m"); got != 8 {
			t.Fatalf("%d keys after full batch, want 8", got)
		}
		for i := 8; i < 11; i++ {
			s.Enqueue(Write{Bucket: "m", Key: key(i), Value: val(i)})
		}
		time.Sleep(time.Hour - time.Nanosecond) // bubble time: just short of the tick
		synctest.Wait()
		if st := s.Stats(); st.Batches != 1 || st.Committed != 8 {
			t.Fatalf("partial batch committed early: %+v", st)
		}
		time.Sleep(time.Nanosecond) // the tick commits it
		synctest.Wait()
		if st := s.Stats(); st.Batches != 2 || st.Committed != 11 {
			t.Fatalf("partial batch not committed at the tick: %+v", st)
		}
	})
}

// TestSmallQueueLargeBatch checks that with MaxBatch above QueueSize/2 the
// writer is woken once half the queue is used, so the queue keeps draining
// and writes are committed without waiting for the interval.
func TestSmallQueueLargeBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const queue, n = 8, 100
		s := openT(t, Options{QueueSize: queue, MaxBatch: 1000, FlushInterval: time.Hour})
		for i := 0; i < n; i++ {
			w := Write{Bucket: "s", Key: key(i), Value: val(i)}
			if !s.Enqueue(w) {
				// The queue is full: once the writer has drained what woke
				// it, with no bubble time passing, there is room again.
				synctest.Wait()
				if !s.Enqueue(w) {
					t.Fatalf("write %d never accepted; writer not draining: %+v", i, s.Stats())
				}
			}
		}
		// Fewer than QueueSize/2 writes may stay queued until the next tick.
		synctest.Wait()
		if st := s.Stats(); st.Committed <= n-queue/2 {
			t.Fatalf("writes not committed without the interval: %+v", st)
		}
		if err := s.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Committed != n {
			t.Fatalf("stats = %+v", st)
		}
	})
}

func TestEnqueueFullQueueReturnsFalseImmediately(t *testing.T) {
	const queue = 4
	s := openT(t, Options{QueueSize: queue, MaxBatch: 1, FlushInterval: time.Millisecond})
	var accepted [][]byte
	// Holding a read-write transaction blocks the writer's commit, so the
	// writer stops draining and the queue fills up.
	err := s.Update(func(*bbolt.Tx) error {
		for i := 0; i < 50; i++ {
			k := key(i)
			start := time.Now()
			ok := s.Enqueue(Write{Bucket: "q", Key: k, Value: val(i)})
			if d := time.Since(start); d > 100*time.Millisecond {
				t.Errorf("Enqueue %d blocked for %v", i, d)
			}
			if ok {
				accepted = append(accepted, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The writer holds at most MaxBatch writes, the queue at most QueueSize.
	if len(accepted) < queue || len(accepted) > queue+1 {
		t.Fatalf("accepted %d writes, want %d or %d", len(accepted), queue, queue+1)
	}
	st := s.Stats()
	if st.Dropped != uint64(50-len(accepted)) || st.Enqueued != uint64(len(accepted)) {
		t.Fatalf("stats = %+v, accepted %d of 50", st, len(accepted))
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, k := range accepted {
		if _, ok := get(t, s, "q", k); !ok {
			t.Fatalf("accepted key %x missing", k)
		}
	}
	if got := count(t, s, "q"); got != len(accepted) {
		t.Fatalf("%d keys stored, %d accepted", got, len(accepted))
	}
	// Room again once the writer is unblocked.
	if !s.Enqueue(Write{Bucket: "q", Key: []byte("after"), Value: []byte("v")}) {
		t.Fatal("Enqueue rejected after the queue drained")
	}
}

func TestFlushHonoursContext(t *testing.T) {
	s := openT(t, Options{})
	s.Enqueue(Write{Bucket: "c", Key: []byte("k"), Value: []byte("v")})
	err := s.Update(func(*bbolt.Tx) error {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := s.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Flush with blocked writer = %v, want DeadlineExceeded", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := get(t, s, "c", []byte("k")); !ok {
		t.Fatal("write lost after cancelled Flush")
	}
}

func TestAfterClose(t *testing.T) {
	s := openT(t, Options{})
	if !s.Enqueue(Write{Bucket: "x", Key: []byte("k"), Value: []byte("v")}) {
		t.Fatal("Enqueue before Close rejected")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Enqueue(Write{Bucket: "x", Key: []byte("k2"), Value: []byte("v")}) {
		t.Fatal("Enqueue after Close accepted")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Destruct(); err != nil {
		t.Fatalf("Destruct after Close: %v", err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush after Close: %v", err)
	}
	if err := s.View(func(*bbolt.Tx) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("View after Close = %v, want ErrClosed", err)
	}
	if err := s.Update(func(*bbolt.Tx) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Update after Close = %v, want ErrClosed", err)
	}
	if st := s.Stats(); st.Enqueued != 1 || st.Committed != 1 || st.Dropped != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestConcurrentEnqueueThenClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conc.db")
	s, err := Open(Options{Path: path, NoSync: true, QueueSize: 1 << 17})
	if err != nil {
		t.Fatal(err)
	}
	const workers, per = 16, 4000
	accepted := make([][][]byte, workers)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				k := []byte(fmt.Sprintf("%02d-%06d", g, i))
				if s.Enqueue(Write{Bucket: "c", Key: k, Value: k}) {
					accepted[g] = append(accepted[g], k)
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	total := 0
	for _, a := range accepted {
		total += len(a)
	}
	if st.Enqueued != uint64(total) || st.Committed != st.Enqueued || st.Failed != 0 ||
		st.Enqueued+st.Dropped != workers*per {
		t.Fatalf("stats = %+v, accepted %d of %d", st, total, workers*per)
	}
	t.Logf("stats: %+v", st)

	s = openT(t, Options{Path: path})
	if got := count(t, s, "c"); got != total {
		t.Fatalf("%d keys after reopen, %d accepted", got, total)
	}
	for _, a := range accepted {
		for _, k := range a {
			if v, ok := get(t, s, "c", k); !ok || string(v) != string(k) {
				t.Fatalf("key %s = %q,%v", k, v, ok)
			}
		}
	}
}

// TestCloseRacingEnqueue closes while 16 goroutines are still enqueuing:
// nothing may panic and every accepted write must survive.
func TestCloseRacingEnqueue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.db")
	s, err := Open(Options{Path: path, NoSync: true, QueueSize: 256, MaxBatch: 64})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 16
	var (
		stop     atomic.Bool
		wg       sync.WaitGroup
		accepted = make([][][]byte, workers)
	)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				k := []byte(fmt.Sprintf("%02d-%08d", g, i))
				if s.Enqueue(Write{Bucket: "r", Key: k, Value: k}) {
					accepted[g] = append(accepted[g], k)
				}
				if g == 0 && i%50 == 0 {
					// Flushes racing Close must not hang or panic either.
					_ = s.Flush(context.Background())
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // keep enqueuing against a closed store
	stop.Store(true)
	wg.Wait()

	total := 0
	for _, a := range accepted {
		total += len(a)
	}
	st := s.Stats()
	if st.Committed != uint64(total) || st.Enqueued != uint64(total) {
		t.Fatalf("stats = %+v, accepted %d", st, total)
	}
	s = openT(t, Options{Path: path})
	if got := count(t, s, "r"); got != total {
		t.Fatalf("%d keys after reopen, %d accepted", got, total)
	}
	for _, a := range accepted {
		for _, k := range a {
			if _, ok := get(t, s, "r", k); !ok {
				t.Fatalf("accepted key %s lost", k)
			}
		}
	}
}

func TestOpenSamePathTwiceTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	openT(t, Options{Path: path})
	start := time.Now()
	s2, err := Open(Options{Path: path, OpenTimeout: 200 * time.Millisecond})
	if err == nil {
		_ = s2.Close()
		t.Fatal("second Open of the same path succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("second Open took %v", d)
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q should be ErrLocked and name the path", err)
	}
}

func TestOpenCreatesParentDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "c")
	path := filepath.Join(dir, "store.db")
	s := openT(t, Options{Path: path})
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("parent not created: %v", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("parent mode = %v, want 0700-ish dir", fi.Mode())
	}
	if s.Path() != path {
		t.Fatalf("Path() = %q, want %q", s.Path(), path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("db file missing: %v", err)
	}
}

func TestOpenRequiresPath(t *testing.T) {
	if s, err := Open(Options{}); err == nil {
		_ = s.Close()
		t.Fatal("Open without Path succeeded")
	}
}

func TestEnsureBucketsAndUpdate(t *testing.T) {
	s := openT(t, Options{})
	if err := s.EnsureBuckets("one", "two"); err != nil {
		t.Fatal(err)
	}
	err := s.View(func(tx *bbolt.Tx) error {
		for _, n := range []string{"one", "two"} {
			if tx.Bucket([]byte(n)) == nil {
				return fmt.Errorf("bucket %s missing", n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Direct Update interleaved with queued writes.
	s.Enqueue(Write{Bucket: "one", Key: []byte("q"), Value: []byte("queued")})
	if err := s.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("one")).Put([]byte("d"), []byte("direct"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if count(t, s, "one") != 2 {
		t.Fatal("queued and direct writes not both present")
	}
	if s.DB() == nil {
		t.Fatal("DB() is nil")
	}
}

func TestRejectedWritesAreCountedNotFatal(t *testing.T) {
	s := openT(t, Options{FlushInterval: time.Hour})
	if err := s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("p"))
		if err != nil {
			return err
		}
		_, err = b.CreateBucket([]byte("nested"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.Enqueue(Write{Bucket: "p", Key: []byte("good1"), Value: []byte("v")})
	s.Enqueue(Write{Bucket: "p", Key: nil, Value: []byte("v")})             // empty key
	s.Enqueue(Write{Bucket: "", Key: []byte("k"), Value: []byte("v")})      // empty bucket
	s.Enqueue(Write{Bucket: "p", Key: []byte("nested"), Value: []byte("")}) // key is a bucket
	s.Enqueue(Write{Bucket: "p", Key: []byte("good2"), Value: []byte("v")})
	if err := s.Flush(context.Background()); err == nil {
		t.Fatal("Flush should report the rejected writes")
	}
	st := s.Stats()
	if st.Failed != 3 || st.Committed != 2 || st.Batches != 1 {
		t.Fatalf("stats = %+v, want 3 failed, 2 committed, 1 batch", st)
	}
	for _, k := range []string{"good1", "good2"} {
		if _, ok := get(t, s, "p", []byte(k)); !ok {
			t.Fatalf("%s lost because of a bad neighbour", k)
		}
	}
	// Failures are not retried: the next Flush is clean.
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("second Flush = %v", err)
	}
}

func TestCommitOnClosedDatabaseIsCountedAndNotRetried(t *testing.T) {
	var once sync.Once
	var s *Store
	// Closing the bbolt handle under the writer makes its next transaction
	// fail in a way no retry can fix.
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "fail.db"), FlushInterval: time.Hour},
		hooks{commit: func() { once.Do(func() { _ = s.db.Close() }) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 10; i++ {
		s.Enqueue(Write{Bucket: "f", Key: key(i), Value: val(i)})
	}
	if err := s.Flush(context.Background()); err == nil {
		t.Fatal("Flush after a failed commit returned nil")
	}
	if st := s.Stats(); st.Failed != 10 || st.Committed != 0 || st.Batches != 0 || st.Retries != 0 {
		t.Fatalf("stats = %+v, want 10 failed, no retry", st)
	}
	// The failed batch is gone: a later empty Flush does not retry it.
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("empty Flush = %v", err)
	}
	if st := s.Stats(); st.Failed != 10 {
		t.Fatalf("failed batch was retried: %+v", st)
	}
}

// failTx returns a tx hook that fails the first n batch transactions.
func failTx(n int) (func(*bbolt.Tx) error, *atomic.Int64) {
	var calls atomic.Int64
	return func(*bbolt.Tx) error {
		if calls.Add(1) <= int64(n) {
			return errors.New("injected I/O error")
		}
		return nil
	}, &calls
}

func TestFailedCommitIsRetriedNotDiscarded(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	hook, calls := failTx(3)
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "retry.db"), FlushInterval: time.Millisecond,
		Logger: zap.New(core)}, hooks{tx: hook})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 10; i++ {
		if !s.Enqueue(Write{Bucket: "r", Key: key(i), Value: val(i)}) {
			t.Fatal("dropped")
		}
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush = %v, want the retried batch committed", err)
	}
	st := s.Stats()
	if st.Committed != 10 || st.Failed != 0 || st.Retries != 3 || st.Batches != 1 {
		t.Fatalf("stats = %+v, want 10 committed after 3 retries", st)
	}
	if calls.Load() != 4 {
		t.Fatalf("%d transactions, want 4", calls.Load())
	}
	if count(t, s, "r") != 10 {
		t.Fatal("retried batch not stored")
	}
	// Three failures within a second log one line.
	if n := logs.FilterMessage("batch commit failed; retrying").Len(); n != 1 {
		t.Fatalf("%d retry log lines, want 1", n)
	}
}

func TestCloseGivesUpOnABatchThatNeverCommits(t *testing.T) {
	hook, _ := failTx(1 << 30)
	s, err := open(Options{Path: filepath.Join(t.TempDir(), "never.db"), FlushInterval: time.Millisecond},
		hooks{tx: hook})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		s.Enqueue(Write{Bucket: "n", Key: key(i), Value: val(i)})
	}
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close hangs on a batch that never commits")
	}
	if st := s.Stats(); st.Failed != 5 || st.Committed != 0 || st.Retries == 0 {
		t.Fatalf("stats = %+v, want 5 failed after retries", st)
	}
}

func TestApplyRunsInsideTheBatchTransaction(t *testing.T) {
	s := openT(t, Options{FlushInterval: time.Hour})
	// A counter maintained by read-modify-write: each Apply sees the
	// previous one's write in the same batch.
	incr := Write{Apply: func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("agg"))
		if err != nil {
			return err
		}
		var n uint64
		if v := b.Get([]byte("n")); v != nil {
			n = binary.BigEndian.Uint64(v)
		}
		return b.Put([]byte("n"), binary.BigEndian.AppendUint64(nil, n+1))
	}}
	reject := Write{Apply: func(*bbolt.Tx) error { return errors.New("bad input") }}
	for i := 0; i < 5; i++ {
		s.Enqueue(incr)
	}
	s.Enqueue(reject)
	s.Enqueue(Write{Bucket: "agg", Key: []byte("plain"), Value: []byte("v")})
	if err := s.Flush(context.Background()); err == nil {
		t.Fatal("Flush should report the rejected Apply")
	}
	v, ok := get(t, s, "agg", []byte("n"))
	if !ok || binary.BigEndian.Uint64(v) != 5 {
		t.Fatalf("counter = %v, want 5", v)
	}
	if _, ok := get(t, s, "agg", []byte("plain")); !ok {
		t.Fatal("plain write after a rejected Apply lost")
	}
	if st := s.Stats(); st.Committed != 6 || st.Failed != 1 || st.Batches != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestDropWarningsAreRateLimited(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	s := openT(t, Options{QueueSize: 2, MaxBatch: 1, Logger: zap.New(core)})
	dropped := 0
	err := s.Update(func(*bbolt.Tx) error {
		for i := 0; i < 200; i++ {
			if !s.Enqueue(Write{Bucket: "w", Key: key(i), Value: val(i)}) {
				dropped++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if dropped < 190 {
		t.Fatalf("only %d drops", dropped)
	}
	if n := logs.FilterMessage("dropping writes").Len(); n != 1 {
		t.Fatalf("%d drop warnings for %d drops within a second, want 1", n, dropped)
	}

	core2, logs2 := observer.New(zapcore.WarnLevel)
	s2 := openT(t, Options{Logger: zap.New(core2)})
	_ = s2.Close()
	for i := 0; i < 100; i++ {
		s2.Enqueue(Write{Bucket: "w", Key: key(i), Value: val(i)})
	}
	if n := logs2.FilterMessage("dropping writes").Len(); n != 1 {
		t.Fatalf("%d warnings for 100 drops after Close, want 1", n)
	}
}

func TestInitialMmapSizeDefaults(t *testing.T) {
	want := DefaultInitialMmapSize
	if runtime.GOOS == "windows" {
		want = 0
	}
	for in, out := range map[int]int{0: want, -1: 0, 1 << 20: 1 << 20} {
		if got := (Options{InitialMmapSize: in}).withDefaults().InitialMmapSize; got != out {
			t.Errorf("InitialMmapSize %d → %d, want %d", in, got, out)
		}
	}
	// bbolt's own growth still works.
	s := openT(t, Options{InitialMmapSize: -1})
	for i := 0; i < 2000; i++ {
		s.Enqueue(Write{Bucket: "g", Key: key(i), Value: make([]byte, 1024)})
	}
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if count(t, s, "g") != 2000 {
		t.Fatal("writes lost while the map grew")
	}
}

// TestMaxBatchBytesCommitsEarly: writes that hold many bytes are committed
// once they reach MaxBatchBytes, without waiting for the interval, and the
// byte count goes back to zero once they are.
func TestMaxBatchBytesCommitsEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openT(t, Options{FlushInterval: time.Hour, MaxBatchBytes: 1000})
		for i := 0; i < 2; i++ {
			s.Enqueue(Write{Bucket: "b", Key: key(i), Value: val(i), Size: 400})
		}
		time.Sleep(time.Hour - time.Nanosecond) // bubble time: just short of the tick
		synctest.Wait()
		if st := s.Stats(); st.Batches != 0 {
			t.Fatalf("committed below the byte budget: %+v", st)
		}
		s.Enqueue(Write{Bucket: "b", Key: key(2), Value: val(2), Size: 400})
		synctest.Wait() // no bubble time has passed: only the byte budget woke the writer
		if st := s.Stats(); st.Batches != 1 || st.Committed != 3 {
			t.Fatalf("writes over the byte budget not committed: %+v", st)
		}
		if n := s.queuedBytes.Load(); n != 0 {
			t.Fatalf("queued bytes after commit = %d", n)
		}
	})
}
