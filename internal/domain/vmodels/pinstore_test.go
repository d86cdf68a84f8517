package vmodels

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// memPins is a PinStore in memory that several services share; it fails
// while down is set and counts its calls.
type memPins struct {
	mu    sync.Mutex
	m     map[string]string
	down  bool
	calls int
}

func (p *memPins) Pin(key string, _ time.Duration) (string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.down {
		return "", false, errors.New("down")
	}
	v, ok := p.m[key]
	return v, ok, nil
}

func (p *memPins) SetPin(key, value string, _ time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.down {
		return errors.New("down")
	}
	p.m[key] = value
	return nil
}

func TestSharedPinsFollowTheSessionAcrossProcesses(t *testing.T) {
	rows := List{{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}}
	st := &memPins{m: map[string]string{}}
	p1, p2 := open(t, rows), open(t, rows)
	p1.SharePins(st)
	p2.SharePins(st)
	// Process 1 serves the session on b (a is saturated there).
	c, _, _ := p1.Resolve("m", "/u", "sess", down{"a/x": true})
	if c.Provider != "b" {
		t.Fatalf("picked %+v", c)
	}
	// Process 2, whose own round robin would start on a, keeps it on b.
	for range 5 {
		if c, _, _ := p2.Resolve("m", "/u", "sess", nil); c.Provider != "b" {
			t.Fatalf("process 2 moved the session to %+v", c)
		}
	}
	// No session: the store is not called.
	n := st.calls
	for range 5 {
		p2.Resolve("m", "/u", "", nil)
	}
	if st.calls != n {
		t.Fatalf("%d store calls for requests without a session", st.calls-n)
	}
	// A held pin costs one call; only a move writes.
	n = st.calls
	p1.Resolve("m", "/u", "sess", nil)
	if st.calls-n != 1 {
		t.Fatalf("%d store calls for a held pin, want 1", st.calls-n)
	}
	// A pin naming a target that is no longer there is not applied.
	st.m["m\x00/u\x00other"] = "1|c/zzz"
	if c, _, _ := p2.Resolve("m", "/u", "other", down{"b/y": true}); c.Provider != "a" {
		t.Fatalf("stale pin applied: %+v", c)
	}
	if st.m["m\x00/u\x00other"] != "0|a/x" {
		t.Fatalf("stale pin not replaced: %q", st.m["m\x00/u\x00other"])
	}
}

func TestSharedPinsFallBackToMemory(t *testing.T) {
	rows := List{{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}}
	st := &memPins{m: map[string]string{}, down: true}
	s := open(t, rows)
	s.SharePins(st)
	first, _, _ := s.Resolve("m", "/u", "sess", nil)
	for range 10 {
		if c, _, _ := s.Resolve("m", "/u", "sess", nil); c != first {
			t.Fatalf("with the store down the session moved from %+v to %+v", first, c)
		}
	}
}
