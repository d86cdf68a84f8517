package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
)

// ErrClosed is returned by View, Update and EnsureBuckets once Close has
// started.
var ErrClosed = errors.New("store: closed")

// Store is an open bbolt file plus its batched writer. It is safe for
// concurrent use.
type Store struct {
	path string
	db   *bbolt.DB
	log  *zap.Logger
	opts Options

	// qmu guards q, and orders setting closing with queueing.
	qmu sync.Mutex
	// q holds the writes and Flush markers not yet taken by the writer,
	// in order.
	q opList
	// closing is set, under qmu, when Close starts: nothing is queued
	// after it, so a writer that finds q empty and closing is done.
	closing atomic.Bool
	// queued counts the writes in q or taken by the writer but not yet
	// moved into its batch: the queue's length as QueueSize bounds it.
	queued atomic.Int64
	kick   chan struct{} // capacity 1; wakes the writer before its next tick
	// kickAt is the queue length at which Enqueue wakes the writer:
	// MaxBatch, but at most half the queue so a small queue does not fill
	// up before the writer runs.
	kickAt int
	// queuedBytes sums Write.Size over the writes in the queue and in
	// the writer's pending batch; Enqueue wakes the writer once it
	// reaches MaxBatchBytes.
	queuedBytes atomic.Int64
	done        chan struct{} // closed when the writer goroutine has exited

	ctr      counters
	drops    DropCounter
	lastWarn logThrottle // the "dropping writes" warning

	closeOnce sync.Once
	closeErr  error

	// batchHooks are the OnBatch hooks, replaced whole under batchMu.
	batchHooks atomic.Pointer[[]BatchHook]
	batchMu    sync.Mutex

	// hooks are set before the writer starts. Tests only.
	hooks hooks
}

// hooks let tests stall or fail the writer. Tests only.
type hooks struct {
	// commit, if set, runs in the writer goroutine before each batch
	// transaction.
	commit func()
	// tx, if set, runs at the end of each batch transaction; an error
	// fails (rolls back) the transaction as a failed commit would.
	tx func(tx *bbolt.Tx) error
}

// op is one queue element: either a write or, when flush is non-nil, a Flush
// marker.
type op struct {
	w     Write
	flush chan error
}

// Open opens (creating if needed) the bbolt file at opts.Path and starts the
// writer goroutine. It fails if another process, or another Store in this
// process, holds the file for longer than opts.OpenTimeout.
func Open(opts Options) (*Store, error) {
	return open(opts, hooks{})
}

// ErrLocked is the error of Open when another process holds the file:
// bbolt lets one process at a time open it.
var ErrLocked = errors.New("file is locked by another process")

// open is Open with test hooks installed before the writer starts.
func open(opts Options, h hooks) (*Store, error) {
	if opts.Path == "" {
		return nil, errors.New("store: Options.Path is required")
	}
	opts = opts.withDefaults()
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create directory for %s: %w", opts.Path, err)
	}
	db, err := bbolt.Open(opts.Path, 0o600, &bbolt.Options{
		Timeout:         opts.OpenTimeout,
		NoSync:          opts.NoSync,
		InitialMmapSize: opts.InitialMmapSize,
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("store: open %s: %w (or by another store in this process); gave up after %s: %w",
				opts.Path, ErrLocked, opts.OpenTimeout, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", opts.Path, err)
	}
	s := &Store{
		path:   opts.Path,
		db:     db,
		log:    opts.Logger.With(zap.String("store", opts.Path)),
		opts:   opts,
		kick:   make(chan struct{}, 1),
		kickAt: max(1, min(opts.MaxBatch, opts.QueueSize/2)),
		done:   make(chan struct{}),
		hooks:  h,
	}
	w := newWriter(s)
	go w.run()
	return s, nil
}

// Path returns the bbolt file path given in Options.Path.
func (s *Store) Path() string { return s.path }

// DB returns the underlying bbolt database for callers that need more than
// View and Update. Do not close it; use Close.
func (s *Store) DB() *bbolt.DB { return s.db }

// closed reports whether Close has started.
func (s *Store) closed() bool { return s.closing.Load() }

// View runs fn in a read-only transaction. Writes still in the queue are not
// visible; call Flush first if fn must see them.
func (s *Store) View(fn func(tx *bbolt.Tx) error) error {
	if s.closed() {
		return ErrClosed
	}
	return s.db.View(fn)
}

// Update runs fn in a synchronous read-write transaction and commits it
// before returning. It is meant for rare administrative operations; bbolt
// serialises it with the writer's batches, so it is safe to use alongside
// Enqueue, but writes still queued may be applied after it.
func (s *Store) Update(fn func(tx *bbolt.Tx) error) error {
	if s.closed() {
		return ErrClosed
	}
	return s.db.Update(fn)
}

// EnsureBuckets creates the named top-level buckets that do not exist yet,
// in one transaction. The writer creates buckets on demand, so this is only
// needed by code that reads a bucket before anything was written to it.
func (s *Store) EnsureBuckets(names ...string) error {
	return s.Update(func(tx *bbolt.Tx) error {
		for _, n := range names {
			if _, err := tx.CreateBucketIfNotExists([]byte(n)); err != nil {
				return fmt.Errorf("store: create bucket %q: %w", n, err)
			}
		}
		return nil
	})
}

// Close stops accepting writes, waits until every queued write has been
// committed (or has failed) and closes the database. It is idempotent and
// safe to call concurrently; every call returns the result of the first.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.qmu.Lock()
		s.closing.Store(true)
		s.qmu.Unlock()
		s.wake()
		<-s.done
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("store: close %s: %w", s.path, err)
		}
	})
	return s.closeErr
}

// Destruct is Close. It makes *Store a caddy.Destructor so a Store can be
// shared through a caddy.UsagePool across config reloads.
func (s *Store) Destruct() error { return s.Close() }
