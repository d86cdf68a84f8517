package vmodels

import (
	"sync"
	"time"
)

// Session pins: defaults of how long and how many are kept.
const (
	// PinIdle is how long a session pin lives without a request.
	PinIdle = 6 * time.Hour
	// MaxPins bounds the pins held in memory; past it expired pins are
	// swept and, if that is not enough, arbitrary ones dropped.
	MaxPins = 100_000
)

// pins remembers, per (alias, user path, session), the target index that
// served the session, in memory only.
type pins struct {
	mu   sync.Mutex
	m    map[string]pin
	max  int
	idle time.Duration
	now  func() time.Time
}

// pin is one remembered choice, valid for the snapshot gen.
type pin struct {
	gen  uint64
	idx  int
	last time.Time
}

func newPins(maxPins int, idle time.Duration, now func() time.Time) *pins {
	return &pins{m: map[string]pin{}, max: maxPins, idle: idle, now: now}
}

// get returns the pinned target index of key under snapshot gen.
func (p *pins) get(key string, gen uint64) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[key]
	if !ok || v.gen != gen || p.now().Sub(v.last) > p.idle {
		return 0, false
	}
	return v.idx, true
}

// set pins key to idx under gen, refreshing its idle time.
func (p *pins) set(key string, gen uint64, idx int) {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.m[key]; !ok && len(p.m) >= p.max {
		p.evict(now)
	}
	p.m[key] = pin{gen: gen, idx: idx, last: now}
}

// evict drops expired pins and, when none had expired, an eighth of the
// rest (whichever the map yields first). The caller holds mu.
func (p *pins) evict(now time.Time) {
	for k, v := range p.m {
		if now.Sub(v.last) > p.idle {
			delete(p.m, k)
		}
	}
	if len(p.m) < p.max {
		return
	}
	drop := max(1, len(p.m)/8)
	for k := range p.m {
		if drop == 0 {
			break
		}
		delete(p.m, k)
		drop--
	}
}

// len is the number of pins held.
func (p *pins) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m)
}
