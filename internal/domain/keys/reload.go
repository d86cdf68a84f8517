package keys

import (
	"encoding/json"
	"fmt"

	"go.uber.org/zap"
)

// readAll reads every record and last-used time stored in b. Records that
// cannot be decoded are skipped and reported to logf, naming their entry
// by key id only (a skipped key is refused, never accepted).
func readAll(b Backend, logf func(string, ...zap.Field)) (entries []*entry, used map[string]int64, err error) {
	used = map[string]int64{}
	err = b.Load(func(key, value []byte) error {
		switch kind, id := splitEntry(key); kind {
		case recordPrefix:
			var r record
			if err := json.Unmarshal(value, &r); err != nil || r.ID != id {
				logf("skipping unreadable managed key record", zap.String("key_id", id))
				return nil
			}
			h, ok := r.hashBytes()
			if !ok {
				logf("skipping managed key record with a malformed hash", zap.String("key_id", id))
				return nil
			}
			entries = append(entries, &entry{rec: r, hash: h})
		case lastUsedPrefix:
			if n, ok := decodeNanos(value); ok {
				used[id] = n
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("keys: loading managed keys: %w", err)
	}
	return entries, used, nil
}

// Reload replaces the keys in memory with those stored in the Backend, so
// that keys created, changed, deactivated or deleted by another process
// sharing the Backend take effect here. A key's last-used time is the
// later of the one in memory and the stored one. It waits for an
// administrative write in progress; lookups go on meanwhile. When the
// Backend cannot be read the keys in memory stay and the error is
// returned.
func (s *Service) Reload() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	loaded, used, err := readAll(s.backend, s.log.Debug)
	if err != nil {
		return err
	}
	byHash := make(map[[hashSize]byte]*entry, len(loaded))
	byID := make(map[string]*entry, len(loaded))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range loaded {
		e := s.byID[n.rec.ID]
		if e == nil || e.hash != n.hash {
			e = n
		} else {
			e.rec = n.rec
		}
		if u, ok := used[n.rec.ID]; ok {
			storeMax(&e.lastUsed, u)
			storeMax(&e.persistedUsed, u)
		}
		byHash[e.hash] = e
		byID[e.rec.ID] = e
	}
	s.byHash, s.byID = byHash, byID
	s.count.Store(int64(len(byID)))
	return nil
}

// storeMax raises v to n when n is later.
func storeMax(v interface {
	Load() int64
	CompareAndSwap(old, new int64) bool
}, n int64) {
	for {
		cur := v.Load()
		if n <= cur || v.CompareAndSwap(cur, n) {
			return
		}
	}
}
