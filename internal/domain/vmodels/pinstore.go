package vmodels

import (
	"strconv"
	"strings"
	"time"
)

// PinStore keeps session pins where every gateway process reads them, so
// a session stays on its target whichever process serves it. Keys are
// opaque strings (virtual model, user path and session); values name a
// target (see Service.SharePins). An error means the store could not be
// reached: the service then uses its in-memory pins.
type PinStore interface {
	// Pin returns the value pinned under key and restarts its idle
	// time; ok is false when there is none.
	Pin(key string, idle time.Duration) (value string, ok bool, err error)
	// SetPin pins key to value for idle.
	SetPin(key, value string, idle time.Duration) error
}

// pinStoreRef holds the PinStore of a Service.
type pinStoreRef struct{ st PinStore }

// SharePins keeps the session pins in st from now on, shared with the
// other processes that use it; nil goes back to memory only. A request
// without a session never calls st; one with a session calls it once
// when its pin holds and twice when the pin is set or moved. While st
// fails the in-memory pins are used.
func (s *Service) SharePins(st PinStore) {
	if st == nil {
		s.pinStore.Store(nil)
		return
	}
	s.pinStore.Store(&pinStoreRef{st: st})
}

// pinValue names target idx of a for a PinStore: its index and its
// provider/model, so a pin does not apply once the targets were edited.
func (a *alias) pinValue(idx int) string {
	tg := &a.targets[idx]
	return strconv.Itoa(idx) + "|" + tg.provider + "/" + tg.model
}

// pinIndex is the target of a that value names, or -1.
func (a *alias) pinIndex(value string) int {
	n, rest, ok := strings.Cut(value, "|")
	if !ok {
		return -1
	}
	idx, err := strconv.Atoi(n)
	if err != nil || idx < 0 || idx >= len(a.targets) {
		return -1
	}
	tg := &a.targets[idx]
	if p, m, _ := strings.Cut(rest, "/"); p != tg.provider || m != tg.model {
		return -1
	}
	return idx
}

// sharedPin looks key up in the shared store: idx is the pinned target
// of a (-1: none, or no longer a target), shared false when there is no
// store or it failed.
func (s *Service) sharedPin(a *alias, key string) (ps PinStore, idx int, shared bool) {
	ref := s.pinStore.Load()
	if ref == nil {
		return nil, -1, false
	}
	v, ok, err := ref.st.Pin(key, PinIdle)
	if err != nil {
		return nil, -1, false
	}
	if !ok {
		return ref.st, -1, true
	}
	return ref.st, a.pinIndex(v), true
}
