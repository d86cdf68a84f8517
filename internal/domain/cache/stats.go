package cache

import "errors"

// Stats describes the cache's content and its use since start.
type Stats struct {
	// Entries is the number of live entries.
	Entries int `json:"entries"`
	// Bytes is their total stored size.
	Bytes int64 `json:"bytes"`
	// MaxBytes is the size cap.
	MaxBytes int64 `json:"max_bytes"`
	// MaxEntryBytes is the cap of one answer's body.
	MaxEntryBytes int64 `json:"max_entry_bytes"`
	// TTLSeconds is how long an entry is served.
	TTLSeconds int64 `json:"ttl_seconds"`
	// Hits counts requests answered from the cache since start.
	Hits int64 `json:"hits"`
	// Misses counts lookups that found nothing since start.
	Misses int64 `json:"misses"`
	// HitRatio is Hits / (Hits + Misses), 0 before any lookup.
	HitRatio float64 `json:"hit_ratio"`
}

// Stats returns the cache's statistics, forgetting expired entries
// first. With a shared storage, Entries and Bytes count what the storage
// holds for every process, and Hits and Misses this process's lookups.
func (c *Cache) Stats() (Stats, error) {
	_, err := c.Purge(Filter{expiredOnly: true})
	c.mu.Lock()
	s := Stats{Entries: c.lru.Len(), Bytes: c.bytes, MaxBytes: c.maxBytes, MaxEntryBytes: c.maxEntryBytes, TTLSeconds: int64(c.ttl.Seconds())}
	c.mu.Unlock()
	if c.shared && err == nil {
		s.Entries, s.Bytes = 0, 0
		now := c.now()
		err = c.st.Scan(func(m Meta) error {
			if now.Before(m.Expires) {
				s.Entries++
				s.Bytes += m.Size
			}
			return nil
		})
	}
	s.Hits, s.Misses = c.hits.Load(), c.misses.Load()
	if n := s.Hits + s.Misses; n > 0 {
		s.HitRatio = float64(s.Hits) / float64(n)
	}
	return s, err
}

// Filter selects entries to purge. The zero Filter selects every entry;
// each set field narrows the selection.
type Filter struct {
	// Model selects the entries of this upstream model id, or of
	// provider/model when it names a provider instance.
	Model string
	// UserPath selects the entries stored for this user path.
	UserPath string

	expiredOnly bool
}

// matches reports whether m is selected at now.
func (f Filter) matches(c *Cache, m *Meta) bool {
	if f.expiredOnly {
		return !c.now().Before(m.Expires)
	}
	if f.UserPath != "" && m.UserPath != f.UserPath {
		return false
	}
	if f.Model != "" && m.Model != f.Model && m.Provider+"/"+m.Model != f.Model {
		return false
	}
	return true
}

// Purge deletes the entries f selects and returns how many. With a
// shared storage it deletes those of every process (the expired ones
// the storage drops itself).
func (c *Cache) Purge(f Filter) (int, error) {
	c.mu.Lock()
	var keys []Key
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if m := el.Value.(*Meta); f.matches(c, m) {
			keys = append(keys, m.Key)
			c.removeLocked(el)
		}
		el = next
	}
	c.mu.Unlock()
	if c.shared && !f.expiredOnly {
		seen := make(map[Key]bool, len(keys))
		for _, k := range keys {
			seen[k] = true
		}
		now := c.now()
		err := c.st.Scan(func(m Meta) error {
			if !seen[m.Key] && now.Before(m.Expires) && f.matches(c, &m) {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
			return nil
		})
		if err != nil {
			return 0, errors.Join(err, c.deleteStored(keys))
		}
	}
	return len(keys), c.deleteStored(keys)
}
