package keys

import (
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// memBackend is an in-memory Backend that counts queued writes.
type memBackend struct {
	mu     sync.Mutex
	data   map[string][]byte
	later  int
	refuse bool // PutLater refuses
}

func newMem() *memBackend { return &memBackend{data: map[string][]byte{}} }

func (m *memBackend) Load(fn func(k, v []byte) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.data {
		if err := fn([]byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

func (m *memBackend) Put(k, v []byte) error {
	m.mu.Lock()
	m.data[string(k)] = append([]byte(nil), v...)
	m.mu.Unlock()
	return nil
}

func (m *memBackend) Delete(keys ...[]byte) error {
	m.mu.Lock()
	for _, k := range keys {
		delete(m.data, string(k))
	}
	m.mu.Unlock()
	return nil
}

func (m *memBackend) PutLater(k, v []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refuse {
		return false
	}
	m.later++
	m.data[string(k)] = v
	return true
}

func (m *memBackend) laterCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.later
}

func mustOpen(t *testing.T, b Backend, c *clock) *Service {
	t.Helper()
	s, err := Open(b, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustCreate(t *testing.T, s *Service, in NewKey) (Key, string) {
	t.Helper()
	k, secret, err := s.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	return k, secret
}
