package boltstore

import (
	"errors"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// BucketCache is the bucket of the response cache: one entry per cached
// answer under its 32-byte key, in the binary form of encodeCacheEntry.
const BucketCache = "cache"

// pendingKeep is how long an entry stays in memory after the writer has
// applied it, so that Get finds it while its batch is being committed.
const pendingKeep = 2 * time.Second

// Cache implements cache.Storage in BucketCache of a store. Puts and
// deletes go through the store's batched writer; until the writer has
// committed a put, Get answers it from memory.
type Cache struct {
	s *store.Store

	mu      sync.RWMutex
	pending map[cache.Key]*pendingEntry
}

// pendingEntry is an entry handed to the writer but perhaps not yet
// committed.
type pendingEntry struct {
	value   []byte
	applied time.Time // zero until the writer has applied it
}

var _ cache.Storage = (*Cache)(nil)

// NewCache returns the response-cache storage over s.
func NewCache(s *store.Store) *Cache {
	return &Cache{s: s, pending: make(map[cache.Key]*pendingEntry)}
}

// Get implements cache.Storage.
func (c *Cache) Get(key cache.Key) (cache.Entry, bool, error) {
	c.mu.RLock()
	p := c.pending[key]
	c.mu.RUnlock()
	if p != nil {
		e, err := decodeCacheEntry(key[:], p.value)
		return e, err == nil, err
	}
	var value []byte
	err := c.s.View(func(tx *bbolt.Tx) error {
		if bk := tx.Bucket([]byte(BucketCache)); bk != nil {
			if v := bk.Get(key[:]); v != nil {
				value = append([]byte(nil), v...)
			}
		}
		return nil
	})
	if err != nil || value == nil {
		return cache.Entry{}, false, err
	}
	e, err := decodeCacheEntry(key[:], value)
	return e, err == nil, err
}

// Put implements cache.Storage.
func (c *Cache) Put(e cache.Entry) (int64, error) {
	key := e.Key
	value := encodeCacheEntry(&e)
	p := &pendingEntry{value: value}
	c.mu.Lock()
	c.sweepLocked(time.Now())
	c.pending[key] = p
	c.mu.Unlock()
	ok := c.s.Enqueue(store.Write{Kind: BucketCache, Apply: func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte(BucketCache))
		if err != nil {
			return err
		}
		if err := bk.Put(key[:], value); err != nil {
			return err
		}
		c.mu.Lock()
		if p.applied.IsZero() {
			p.applied = time.Now()
		}
		c.mu.Unlock()
		return nil
	}})
	if !ok {
		c.mu.Lock()
		if c.pending[key] == p {
			delete(c.pending, key)
		}
		c.mu.Unlock()
		return 0, errors.New("cache store: write queue full or store closed")
	}
	return int64(len(key) + len(value)), nil
}

// sweepLocked forgets pending entries applied more than pendingKeep ago.
func (c *Cache) sweepLocked(now time.Time) {
	for k, p := range c.pending {
		if !p.applied.IsZero() && now.Sub(p.applied) > pendingKeep {
			delete(c.pending, k)
		}
	}
}

// Delete implements cache.Storage.
func (c *Cache) Delete(keys []cache.Key) error {
	c.mu.Lock()
	for _, k := range keys {
		delete(c.pending, k)
	}
	c.mu.Unlock()
	for _, k := range keys {
		kb := append([]byte(nil), k[:]...)
		if !c.s.Enqueue(store.Write{Bucket: BucketCache, Key: kb}) {
			return errors.New("cache store: write queue full or store closed")
		}
	}
	return nil
}

// Scan implements cache.Storage. Entries that do not decode are skipped.
func (c *Cache) Scan(fn func(m cache.Meta) error) error {
	return c.s.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket([]byte(BucketCache))
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			m, _, err := decodeCacheMeta(k, v)
			if err != nil {
				return nil
			}
			return fn(m)
		})
	})
}
