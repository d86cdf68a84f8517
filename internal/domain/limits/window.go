package limits

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// counter is the live state of one rule, or of one child partition of a
// per_child template: either a sliding request/token window (period > 0) or
// an in-flight gauge (period == 0). Every field except id, period, child and
// inFlight is guarded by mu.
type counter struct {
	mu sync.Mutex

	// id orders lock acquisition across counters (unique, never reused).
	id uint64
	// period is the window length in nanoseconds; 0 for a concurrency gauge.
	period int64
	// child is the partition's child segment; "" for a rule's own counter.
	child string
	// holds says admissions count themselves in inFlight: always for
	// gauges, and for child partitions so that eviction never drops one a
	// running request still holds. A rule's own window counter skips the
	// two atomic operations.
	holds bool
	// sid is the counter's name in a shared backend (see Key.SharedID).
	sid string
	// busyUntil (unix nanos) is set when a shared admission found this
	// concurrency counter full: TargetAvailable reports it saturated
	// until then, as the local gauge cannot tell.
	busyUntil atomic.Int64

	// idx is the index (unix nanos / period) of the current window.
	idx             int64
	curReq, prevReq int64
	curTok, prevTok int64
	gen             uint64 // generation of the data, see persist.go
	lastUsed        int64  // unix nanos of the last admission or charge
	dirty           bool   // changed since the last snapshot
	dead            bool   // evicted partition: admissions must look up again
	inFlight        atomic.Int64
	// lease holds the requests a Shared backend counted ahead for this
	// process (see sharedlease.go).
	lease counterLease
}

// counterIDs hands out counter ids.
var counterIDs atomic.Uint64

// newCounter returns an empty counter for a window of period (0: gauge).
func newCounter(period time.Duration, child string, gen uint64) *counter {
	return &counter{id: counterIDs.Add(1), period: int64(period), child: child, gen: gen, holds: period == 0 || child != ""}
}

// gauge reports whether c is an in-flight gauge.
func (c *counter) gauge() bool { return c.period == 0 }

// rotate moves c's windows forward to the window containing now (unix
// nanos). Caller holds mu.
func (c *counter) rotate(now int64) {
	i := floorDiv(now, c.period)
	switch d := i - c.idx; {
	case d <= 0:
		// Same window, or a clock reading older than one already seen
		// (another goroutine got here first): never move back.
		return
	case d == 1:
		c.prevReq, c.curReq = c.curReq, 0
		c.prevTok, c.curTok = c.curTok, 0
	default:
		// More than one window passed: nothing of the stored windows
		// overlaps the sliding window any more.
		c.prevReq, c.curReq, c.prevTok, c.curTok = 0, 0, 0, 0
	}
	c.idx = i
}

// elapsed is the time since the start of the current window. Caller holds
// mu and has rotated c to now.
// An older clock reading counts as the window's start (the conservative
// end).
func (c *counter) elapsed(now int64) int64 { return min(max(now-c.idx*c.period, 0), c.period-1) }

// clear empties both windows (not the in-flight gauge) and stamps gen.
// Caller holds mu.
func (c *counter) clear(gen uint64) {
	c.curReq, c.prevReq, c.curTok, c.prevTok = 0, 0, 0, 0
	c.lease.left, c.lease.back = 0, 0
	c.gen = gen
	c.dirty = false
}

// window is a read-only view of one sliding window at an instant.
type window struct {
	cur, prev int64 // counts of the current and previous fixed window
	elapsed   int64 // nanos since the current fixed window started
	period    int64 // nanos
}

// used is the sliding-window estimate, rounded up:
// cur + ceil(prev × (period − elapsed) / period).
func (w window) used() int64 {
	return satAdd(w.cur, mulDivCeil(w.prev, w.period-w.elapsed, w.period))
}

// wait is the shortest time (nanos) after which one more unit fits under
// limit (used + 1 ≤ limit), assuming nothing else is admitted meanwhile: the
// estimate only decays, first within the current window (previous count
// fading out), then in the next one (current count becoming the fading
// previous count). The result may lie past the next window boundary.
func (w window) wait(limit int64) int64 {
	if limit <= 0 || w.used() < limit {
		return 0
	}
	p, e := w.period, w.elapsed
	// Within the current window: need ceil(prev·(p−t)/p) ≤ r with
	// r = limit−1−cur, i.e. t ≥ p − floor(r·p/prev). Reaching here with
	// r ≥ 0 implies prev > r, so the quotient is below p.
	if r := limit - 1 - w.cur; r >= 0 && w.prev > 0 {
		t := p - mulDivFloor(r, p, w.prev)
		return max(t-e, 1)
	}
	// In the next window the current count fades: need
	// ceil(cur·(p−t)/p) ≤ limit−1 with cur ≥ limit > limit−1.
	t := p - mulDivFloor(limit-1, p, w.cur)
	return (p - e) + t
}

// reset is the time (nanos) until the estimate has decayed to zero: the
// end of the next window if the current one has traffic, the end of this
// one if only the previous had.
func (w window) reset() int64 {
	switch {
	case w.cur > 0:
		return 2*w.period - w.elapsed
	case w.prev > 0:
		return w.period - w.elapsed
	}
	return 0
}

// reqWindow and tokWindow view c's windows. Caller holds mu and has rotated
// c to now.
func (c *counter) reqWindow(now int64) window {
	return window{cur: c.curReq, prev: c.prevReq, elapsed: c.elapsed(now), period: c.period}
}

// tokWindow views c's token window; see reqWindow.
func (c *counter) tokWindow(now int64) window {
	return window{cur: c.curTok, prev: c.prevTok, elapsed: c.elapsed(now), period: c.period}
}

// peek returns c's request and token windows as of now without changing c
// (rotation is applied to copies). Caller holds mu.
func (c *counter) peek(now int64) (req, tok window) {
	cp := counter{period: c.period, idx: c.idx, curReq: c.curReq, prevReq: c.prevReq, curTok: c.curTok, prevTok: c.prevTok}
	cp.rotate(now)
	return cp.reqWindow(now), cp.tokWindow(now)
}

// floorDiv divides rounding towards negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// mulDivFloor returns floor(a·b/c) for non-negative a, b and positive c
// without intermediate overflow, saturating at MaxInt64.
func mulDivFloor(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// mulDivCeil returns ceil(a·b/c) like mulDivFloor.
func mulDivCeil(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, rem := bits.Div64(hi, lo, uint64(c))
	if rem != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// satAdd adds non-negative a and b, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

// ceilSeconds converts nanos to whole seconds, rounding up.
func ceilSeconds(ns int64) time.Duration {
	if ns <= 0 {
		return 0
	}
	return time.Duration((ns+int64(time.Second)-1)/int64(time.Second)) * time.Second
}
