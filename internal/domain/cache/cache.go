package cache

import (
	"container/list"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	// DefaultTTL is how long an entry is served when Options.TTL is 0.
	DefaultTTL = time.Hour
	// DefaultMaxBytes is the size cap when Options.MaxBytes is 0.
	DefaultMaxBytes = 256 << 20
	// DefaultMaxEntryBytes is the cap of one answer's body when
	// Options.MaxEntryBytes is 0 (lowered to MaxBytes when that is
	// smaller).
	DefaultMaxEntryBytes = 1 << 20
)

// Options configure Open.
type Options struct {
	// Storage persists the entries. Required.
	Storage Storage
	// TTL is how long an entry is served after it was stored; 0 means
	// DefaultTTL.
	TTL time.Duration
	// MaxBytes caps the total stored size of the entries; 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// MaxEntryBytes caps the body of one answer: a longer one is not
	// stored, and a caller capturing an answer stops once it outgrows
	// this. 0 means DefaultMaxEntryBytes; never more than MaxBytes.
	MaxEntryBytes int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Shared says other processes store entries in Storage too: a lookup
	// whose key this process has not indexed asks Storage (and indexes
	// the entry it finds), and Purge and Stats go over what Storage
	// holds rather than this process's index. The Storage must then
	// expire entries at their Expires itself.
	Shared bool
}

// Cache is the response cache. It is safe for concurrent use.
type Cache struct {
	st     Storage
	now    func() time.Time
	shared bool

	mu            sync.Mutex
	ttl           time.Duration
	maxBytes      int64
	maxEntryBytes int64
	lru           *list.List // of *Meta, most recently used first
	index         map[Key]*list.Element
	bytes         int64
	flights       map[Key]*Flight

	hits, misses atomic.Int64
}

// Open returns a cache over opts.Storage, indexing the entries stored
// there: expired ones are deleted, and the least recently stored go
// while the total exceeds MaxBytes. A shared storage that cannot be
// scanned is not an error: the index starts empty.
func Open(opts Options) (*Cache, error) {
	if opts.Storage == nil {
		return nil, errors.New("cache: Options.Storage is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Cache{st: opts.Storage, now: opts.Now, shared: opts.Shared, lru: list.New(),
		index: make(map[Key]*list.Element), flights: make(map[Key]*Flight)}
	c.setLimits(opts.TTL, opts.MaxBytes, opts.MaxEntryBytes)
	now := c.now()
	var metas []Meta
	var expired []Key
	err := c.st.Scan(func(m Meta) error {
		if !now.Before(m.Expires) {
			expired = append(expired, m.Key)
			return nil
		}
		metas = append(metas, m)
		return nil
	})
	if err != nil {
		if !c.shared {
			return nil, err
		}
		// The entries are found on lookup; the index fills as they are.
		metas, expired = nil, nil
	}
	// Most recently stored first: with no record of use, the oldest
	// entries are the least recently used.
	sortByCreatedDesc(metas)
	for i := range metas {
		m := metas[i]
		c.index[m.Key] = c.lru.PushBack(&m)
		c.bytes += m.Size
	}
	victims := c.evictLocked()
	if err := c.deleteStored(append(expired, victims...)); err != nil {
		return nil, err
	}
	return c, nil
}

// SetLimits changes the TTL (of entries stored from now on), the size
// cap (evicting at once if needed) and the cap of one answer (of answers
// stored from now on); zero values mean the defaults, as in Options.
func (c *Cache) SetLimits(ttl time.Duration, maxBytes, maxEntryBytes int64) error {
	c.mu.Lock()
	c.setLimits(ttl, maxBytes, maxEntryBytes)
	victims := c.evictLocked()
	c.mu.Unlock()
	return c.deleteStored(victims)
}

func (c *Cache) setLimits(ttl time.Duration, maxBytes, maxEntryBytes int64) {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxEntryBytes <= 0 {
		maxEntryBytes = DefaultMaxEntryBytes
	}
	c.ttl, c.maxBytes, c.maxEntryBytes = ttl, maxBytes, min(maxEntryBytes, maxBytes)
}

// get returns the live entry under key, touching it, or nil.
func (c *Cache) get(key Key) (*Answer, error) {
	c.mu.Lock()
	el, ok := c.index[key]
	if !ok {
		c.mu.Unlock()
		if c.shared {
			return c.getShared(key)
		}
		return nil, nil
	}
	m := el.Value.(*Meta)
	if !c.now().Before(m.Expires) {
		c.removeLocked(el)
		c.mu.Unlock()
		return nil, c.deleteStored([]Key{key})
	}
	c.lru.MoveToFront(el)
	c.mu.Unlock()
	e, found, err := c.st.Get(key)
	if err != nil || !found {
		// Lost (a dropped write, a purge racing this read): forget it.
		c.forget(key)
		return nil, err
	}
	return &e.Answer, nil
}

// getShared looks up in the storage a key this process has not indexed
// (another process stored it) and indexes the live entry it finds.
func (c *Cache) getShared(key Key) (*Answer, error) {
	e, found, err := c.st.Get(key)
	if err != nil || !found || !c.now().Before(e.Expires) {
		return nil, err
	}
	m := e.Meta
	c.mu.Lock()
	if el, ok := c.index[key]; ok {
		c.removeLocked(el)
	}
	c.index[key] = c.lru.PushFront(&m)
	c.bytes += m.Size
	victims := c.evictLocked()
	c.mu.Unlock()
	return &e.Answer, c.deleteStored(victims)
}

// forget drops key from the index.
func (c *Cache) forget(key Key) {
	c.mu.Lock()
	if el, ok := c.index[key]; ok {
		c.removeLocked(el)
	}
	c.mu.Unlock()
}

// Put stores ans under m.Key for the TTL, evicting the least recently
// used entries while the total exceeds MaxBytes. An answer whose body is
// longer than MaxEntryBytes is not stored. m's Size, Created and Expires
// are set here.
func (c *Cache) Put(m Meta, ans *Answer) error {
	c.mu.Lock()
	limit := c.maxEntryBytes
	ttl := c.ttl
	c.mu.Unlock()
	if ans.BodySize() > limit {
		return nil
	}
	now := c.now()
	m.Created, m.Expires = now, now.Add(ttl)
	size, err := c.st.Put(Entry{Meta: m, Answer: *ans})
	if err != nil {
		return err
	}
	m.Size = size
	c.mu.Lock()
	if el, ok := c.index[m.Key]; ok {
		c.removeLocked(el)
	}
	c.index[m.Key] = c.lru.PushFront(&m)
	c.bytes += size
	victims := c.evictLocked()
	c.mu.Unlock()
	return c.deleteStored(victims)
}

// evictLocked removes least recently used entries from the index while
// the total exceeds the cap and returns their keys for deletion.
func (c *Cache) evictLocked() []Key {
	var out []Key
	for c.bytes > c.maxBytes {
		el := c.lru.Back()
		if el == nil {
			break
		}
		out = append(out, el.Value.(*Meta).Key)
		c.removeLocked(el)
	}
	return out
}

// removeLocked drops el from the index.
func (c *Cache) removeLocked(el *list.Element) {
	m := el.Value.(*Meta)
	c.lru.Remove(el)
	delete(c.index, m.Key)
	c.bytes -= m.Size
}

// deleteStored deletes keys from the storage.
func (c *Cache) deleteStored(keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	return c.st.Delete(keys)
}

// sortByCreatedDesc sorts metas newest first.
func sortByCreatedDesc(metas []Meta) {
	slices.SortFunc(metas, func(a, b Meta) int { return b.Created.Compare(a.Created) })
}

// MaxEntryBytes returns the cap of one answer's body: a caller capturing
// an answer to store stops (and ends its Flight) once it outgrows this.
func (c *Cache) MaxEntryBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxEntryBytes
}
