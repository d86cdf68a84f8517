package keys

import "go.uber.org/zap"

// touch records a use of e at now (Unix nanoseconds): always in memory,
// and through the backend's non-blocking queue when the last persisted
// time is at least LastUsedEvery old. Only the goroutine that wins the
// compare-and-swap writes, so a busy key costs one queued write a minute.
func (s *Service) touch(e *entry, id string, now int64) {
	for {
		cur := e.lastUsed.Load()
		if now <= cur || e.lastUsed.CompareAndSwap(cur, now) {
			break
		}
	}
	last := e.persistedUsed.Load()
	if now-last < s.usedEvery || !e.persistedUsed.CompareAndSwap(last, now) {
		return
	}
	if !s.backend.PutLater(lastUsedKey(id), encodeNanos(now)) {
		// The queue is full or closed: the in-memory time stays right and
		// the next use (or Close) tries again.
		e.persistedUsed.CompareAndSwap(now, last)
	}
}

// Close hands every last-used time not yet persisted to the backend's
// queue. Call it before the backend's store is closed, which commits the
// queue. It is idempotent; the Service keeps answering lookups after it.
func (s *Service) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for id, e := range s.byID {
		used := e.lastUsed.Load()
		if used > e.persistedUsed.Load() {
			if s.backend.PutLater(lastUsedKey(id), encodeNanos(used)) {
				e.persistedUsed.Store(used)
			} else {
				s.log.Warn("could not persist a key's last-used time", zap.String("key_id", id))
			}
		}
	}
	return nil
}

// Destruct is Close. It makes *Service a caddy.Destructor so that one
// Service can be shared, like its store, across config reloads.
func (s *Service) Destruct() error { return s.Close() }
