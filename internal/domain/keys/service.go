package keys

import (
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

const hashSize = sha256.Size

// DefaultLastUsedEvery is the default Options.LastUsedEvery.
const DefaultLastUsedEvery = time.Minute

// Options configure Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// LastUsedEvery is the least time between two persisted last-used
	// updates of one key. The in-memory value is always current.
	// Default one minute.
	LastUsedEvery time.Duration
	// Logger receives load and persistence problems, naming keys by id
	// only. Nil discards them.
	Logger *zap.Logger
}

// Service holds the managed API keys: every key's record in memory, looked
// up by the SHA-256 of the presented key, and persisted through a Backend.
// Authentication never touches storage; administrative changes are written
// synchronously before they take effect. It is safe for concurrent use.
type Service struct {
	backend   Backend
	now       func() time.Time
	usedEvery int64 // nanoseconds
	log       *zap.Logger

	// wmu serializes administrative writes, so that the slow, durable write
	// happens outside mu and never holds up authentication.
	wmu sync.Mutex

	mu     sync.RWMutex
	byHash map[[hashSize]byte]*entry
	byID   map[string]*entry
	count  atomic.Int64

	closed atomic.Bool
}

// entry is one key in memory. rec is guarded by Service.mu; the last-used
// times are atomics updated on the hot path.
type entry struct {
	rec  record
	hash [hashSize]byte
	// lastUsed is the last successful authentication, Unix nanoseconds.
	lastUsed atomic.Int64
	// persistedUsed is the last-used time most recently handed to the
	// backend.
	persistedUsed atomic.Int64
}

// Open loads every stored key from b and returns the Service. Records that
// cannot be decoded are skipped with an error log naming their entry (a
// skipped key is refused, never accepted).
func Open(b Backend, opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LastUsedEvery <= 0 {
		opts.LastUsedEvery = DefaultLastUsedEvery
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	s := &Service{
		backend:   b,
		now:       opts.Now,
		usedEvery: int64(opts.LastUsedEvery),
		log:       opts.Logger,
		byHash:    map[[hashSize]byte]*entry{},
		byID:      map[string]*entry{},
	}
	entries, used, err := readAll(b, s.log.Error)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		s.insert(e)
	}
	var orphans [][]byte
	for id, n := range used {
		if e := s.byID[id]; e != nil {
			e.lastUsed.Store(n)
			e.persistedUsed.Store(n)
		} else {
			orphans = append(orphans, lastUsedKey(id))
		}
	}
	if len(orphans) > 0 {
		// Last-used times of deleted keys, written after the delete.
		if err := b.Delete(orphans...); err != nil {
			s.log.Warn("removing stale last-used entries", zap.Error(err))
		}
	}
	return s, nil
}

// insert adds e to the indexes. The caller holds mu (or owns s alone).
func (s *Service) insert(e *entry) {
	s.byHash[e.hash] = e
	s.byID[e.rec.ID] = e
	s.count.Store(int64(len(s.byID)))
}

// Count returns the number of managed keys, whatever their state.
func (s *Service) Count() int { return int(s.count.Load()) }

// Match is the outcome of looking up a presented key.
type Match struct {
	// Found reports whether the key exists (in any state).
	Found bool
	// ID is the key's id.
	ID string
	// State is the key's state now; only StateActive authenticates.
	State State
	// UserPath is the user path bound to the key ("" when unbound).
	UserPath string
	// DashboardAccess lets the key use /admin/*.
	DashboardAccess bool
}

// Lookup finds the key whose SHA-256 is sum and, when it is active, records
// the use. The candidate found by the hash index is confirmed with a
// constant-time comparison.
func (s *Service) Lookup(sum [hashSize]byte) Match {
	now := s.now()
	s.mu.RLock()
	e := s.byHash[sum]
	if e == nil || subtle.ConstantTimeCompare(e.hash[:], sum[:]) != 1 {
		s.mu.RUnlock()
		return Match{}
	}
	m := Match{
		Found: true, ID: e.rec.ID, State: e.rec.state(now),
		UserPath: e.rec.UserPath, DashboardAccess: e.rec.DashboardAccess,
	}
	s.mu.RUnlock()
	if m.State == StateActive {
		s.touch(e, m.ID, now.UnixNano())
	}
	return m
}

// Authenticate hashes key and looks it up; see Lookup.
func (s *Service) Authenticate(key string) Match {
	return s.Lookup(sha256.Sum256([]byte(key)))
}
