package pgstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// mg_keys is the managed keys' entry space: one row per entry the keys
// package names (key records and last-used times), each an opaque value.
var _ = register("keys",
	`CREATE TABLE mg_keys (
		name  bytea PRIMARY KEY,
		value bytea NOT NULL
	)`,
)

// Defaults of the last-used writer.
const (
	// keysWriteDelay is how long queued last-used times gather before
	// they are written together.
	keysWriteDelay = time.Second
	// keysRetryDelay is the pause before a failed write is tried again.
	keysRetryDelay = 5 * time.Second
	// keysMaxPending bounds the entries waiting to be written; PutLater
	// refuses more (the keys service keeps the time in memory and tries
	// again at the next use).
	keysMaxPending = 100_000
	// keysCloseTimeout bounds the final write at Close.
	keysCloseTimeout = 10 * time.Second
)

// Keys is the keys.Backend over PostgreSQL: Put and Delete are written
// before they return; PutLater coalesces entries in memory (the latest
// value of each entry wins) and a background goroutine writes them in one
// statement, so the request path never waits for the database. Close
// writes what is still queued. It is safe for concurrent use.
type Keys struct {
	db  *DB
	log *zap.Logger

	mu      sync.Mutex
	pending map[string][]byte
	closed  bool

	// writeMu serializes the writes of queued entries (the background
	// goroutine's and Flush's), so that a Flush that holds it knows every
	// earlier write has finished.
	writeMu sync.Mutex

	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

var _ keys.Backend = (*Keys)(nil)

// NewKeys returns the managed-key backend over db and starts its
// background writer; Close stops it.
func NewKeys(db *DB) *Keys {
	k := &Keys{
		db:      db,
		log:     db.logger,
		pending: map[string][]byte{},
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go k.run()
	return k
}

// Load implements keys.Backend: it calls fn for every entry, in name
// order, and stops at fn's first error.
func (k *Keys) Load(fn func(key, value []byte) error) error {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := k.db.Pool.Query(ctx, `SELECT name, value FROM mg_keys ORDER BY name`)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	var name, value []byte
	for rows.Next() {
		if err := rows.Scan(&name, &value); err != nil {
			return classify(err)
		}
		if err := fn(name, value); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}

// Put implements keys.Backend.
func (k *Keys) Put(key, value []byte) error {
	ctx, cancel := opContext()
	defer cancel()
	_, err := k.db.Pool.Exec(ctx, `INSERT INTO mg_keys (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, key, value)
	return classify(err)
}

// Delete implements keys.Backend. A queued entry of a deleted name is
// dropped too, and the delete waits for a write in progress, so that a
// queued value cannot come back after it.
func (k *Keys) Delete(names ...[]byte) error {
	if len(names) == 0 {
		return nil
	}
	k.writeMu.Lock()
	defer k.writeMu.Unlock()
	k.mu.Lock()
	for _, n := range names {
		delete(k.pending, string(n))
	}
	k.mu.Unlock()
	ctx, cancel := opContext()
	defer cancel()
	_, err := k.db.Pool.Exec(ctx, `DELETE FROM mg_keys WHERE name = ANY($1)`, names)
	return classify(err)
}

// PutLater implements keys.Backend: it copies the entry into the queue
// (replacing a queued value of the same name) and never blocks. It
// refuses once Close has run or when keysMaxPending entries wait.
func (k *Keys) PutLater(key, value []byte) bool {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return false
	}
	switch old, queued := k.pending[string(key)]; {
	case queued && len(old) == len(value):
		// The queued copy belongs to this map alone (a write takes the
		// whole map): overwrite it in place, without allocating.
		copy(old, value)
	case !queued && len(k.pending) >= keysMaxPending:
		k.mu.Unlock()
		return false
	default:
		k.pending[string(key)] = append([]byte(nil), value...)
	}
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
	return true
}

// Flush writes every entry queued before it and returns once that is
// durable, or with the error that kept it from being written (the entries
// then stay queued).
func (k *Keys) Flush(ctx context.Context) error {
	k.writeMu.Lock()
	defer k.writeMu.Unlock()
	k.mu.Lock()
	batch := k.pending
	k.pending = map[string][]byte{}
	k.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := k.write(ctx, batch); err != nil {
		k.requeue(batch)
		return err
	}
	return nil
}

// Close stops the background writer, refuses further PutLater calls and
// writes what is still queued. It is idempotent; the error reports
// entries that could not be written.
func (k *Keys) Close() error {
	var err error
	k.once.Do(func() {
		k.mu.Lock()
		k.closed = true
		k.mu.Unlock()
		close(k.stop)
		<-k.done
		ctx, cancel := context.WithTimeout(context.Background(), keysCloseTimeout)
		defer cancel()
		if err = k.Flush(ctx); err != nil {
			err = fmt.Errorf("postgres: writing queued key last-used times: %w", err)
		}
	})
	return err
}

// run writes queued entries: it waits for one, lets more gather for
// keysWriteDelay, writes them all, and after a failure waits
// keysRetryDelay before trying again. An outage is logged once, and
// again when writes succeed.
func (k *Keys) run() {
	defer close(k.done)
	failing := false
	for {
		select {
		case <-k.stop:
			return
		case <-k.wake:
		}
		if !k.sleep(keysWriteDelay) {
			return
		}
		ctx, cancel := opContext()
		err := k.Flush(ctx)
		cancel()
		if err == nil && failing {
			failing = false
			k.log.Info("postgres: key last-used times written again")
		}
		if err != nil {
			if !failing {
				failing = true
				k.log.Warn("postgres: writing key last-used times failed; they stay queued and are retried", zap.Error(err))
			}
			if !k.sleep(keysRetryDelay) {
				return
			}
			select {
			case k.wake <- struct{}{}:
			default:
			}
		}
	}
}

// sleep waits d and reports false when Close interrupted it.
func (k *Keys) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-k.stop:
		return false
	case <-t.C:
		return true
	}
}

// requeue puts back the entries of a failed write, unless a newer value
// of the same name was queued meanwhile.
func (k *Keys) requeue(batch map[string][]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for n, v := range batch {
		if _, newer := k.pending[n]; !newer {
			k.pending[n] = v
		}
	}
}

// write upserts batch in one statement.
func (k *Keys) write(ctx context.Context, batch map[string][]byte) error {
	names := make([][]byte, 0, len(batch))
	values := make([][]byte, 0, len(batch))
	for n, v := range batch {
		names = append(names, []byte(n))
		values = append(values, v)
	}
	_, err := k.db.Pool.Exec(ctx, `INSERT INTO mg_keys (name, value)
		SELECT * FROM unnest($1::bytea[], $2::bytea[])
		ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, names, values)
	return classify(err)
}
