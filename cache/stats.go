package cache

// Stats describes the cache's content and its use since start.
type Stats struct {
	// Entries is the number of live entries.
	Entries int `json:"entries"`
	// Bytes is their total stored size.
	Bytes int64 `json:"bytes"`
	// MaxBytes is the size cap.
	MaxBytes int64 `json:"max_bytes"`
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
// first.
func (c *Cache) Stats() (Stats, error) {
	_, err := c.Purge(Filter{expiredOnly: true})
	c.mu.Lock()
	s := Stats{Entries: c.lru.Len(), Bytes: c.bytes, MaxBytes: c.maxBytes, TTLSeconds: int64(c.ttl.Seconds())}
	c.mu.Unlock()
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

// Purge deletes the entries f selects and returns how many.
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
	return len(keys), c.deleteStored(keys)
}
