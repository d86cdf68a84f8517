package cache

import (
	"sync"
	"time"
)

// memStorage is a Storage in memory that sizes an entry as its body plus
// 100 bytes and counts Gets.
type memStorage struct {
	mu      sync.Mutex
	entries map[Key]Entry
	gets    int
}

func newMemStorage() *memStorage { return &memStorage{entries: map[Key]Entry{}} }

func (s *memStorage) Get(key Key) (Entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	e, ok := s.entries[key]
	return e, ok, nil
}

func (s *memStorage) Put(e Entry) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Size = e.BodySize() + 100
	s.entries[e.Key] = e
	return e.Size, nil
}

func (s *memStorage) Delete(keys []Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.entries, k)
	}
	return nil
}

func (s *memStorage) Scan(fn func(Meta) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		if err := fn(e.Meta); err != nil {
			return err
		}
	}
	return nil
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// keyN is a distinct key per n.
func keyN(n int) Key {
	var k Key
	k[0], k[1] = byte(n), byte(n>>8)
	return k
}

// answerOf is an answer whose body is size bytes.
func answerOf(size int) *Answer {
	return &Answer{Chunks: [][]byte{make([]byte, size)}}
}
