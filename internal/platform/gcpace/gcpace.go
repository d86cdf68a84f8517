// Package gcpace gives the Go garbage collector a minimum heap: no
// collection starts before the heap has reached a given size, and above it
// the collector keeps its usual pacing.
//
// A proxy keeps little memory live (a few MiB) but allocates quickly (every
// request's headers, bodies and records). The collector's default pacing
// (GOGC=100) starts a collection each time the heap has doubled, so a small
// live heap means a collection every few dozen milliseconds, and a fifth
// of the CPU spent on them. Each collection costs about the same whatever
// the heap's size, so letting a small heap grow to a few tens of MiB makes
// collections proportionally rarer. The cost is bounded: the heap goal is
// the minimum heap or the default goal (twice the live heap), whichever is
// larger, so a process whose live heap is already half the minimum or more
// (under heavy load, with large bodies in flight) uses no more memory than
// it would without it.
//
// The pacing is adjusted after every collection from the live heap it
// found, through debug.SetGCPercent; the percentage never drops below the
// one in force when the first holder arrived. An operator's explicit GOGC
// environment variable wins: with it set, Hold changes nothing.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// MaxPercent caps the GOGC percentage the pacer sets, for a live heap so
// small that the minimum heap is many times its size.
const MaxPercent = 2000

// liveMetric is the runtime metric of the heap the last collection marked
// live.
const liveMetric = "/gc/heap/live:bytes"

// state is the process-wide pacer: GOGC is one setting per process, so
// every holder shares it.
var state struct {
	mu sync.Mutex
	// holders maps each Hold to its minimum heap; the largest one is in
	// force.
	holders map[*int64]int64
	// base is the percentage in force when the first holder arrived,
	// restored when the last one leaves.
	base int
	// gen counts the times the pacer was started, so that a sentinel
	// armed by an earlier start does not re-arm itself.
	gen uint64
	// percent is the percentage the pacer last set.
	percent int
	// sample reads the live heap.
	sample []metrics.Sample
}

// Hold asks that no collection start before the heap reaches minHeap
// bytes, and returns the function that gives the request up and whether
// the pacer is active. The largest minimum held is in force; when the last
// holder releases, the percentage in force before the first Hold is
// restored. A minimum of zero or less, an explicit GOGC environment
// variable, or a collector that is off (GOGC=off) make Hold a no-op; so
// does the runtime lacking the live heap metric. Release is safe to call
// more than once.
func Hold(minHeap int64) (release func(), active bool) {
	if minHeap <= 0 || GOGCSet() || !hasLiveMetric() {
		return func() {}, false
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	if len(state.holders) == 0 {
		base := debug.SetGCPercent(100)
		debug.SetGCPercent(base)
		if base < 0 {
			return func() {}, false
		}
		state.holders = make(map[*int64]int64)
		state.base, state.percent = base, base
		state.sample = []metrics.Sample{{Name: liveMetric}}
		state.gen++
		arm(state.gen)
	}
	token := new(int64)
	state.holders[token] = minHeap
	adjustLocked()
	var once sync.Once
	return func() { once.Do(func() { drop(token) }) }, true
}

// drop removes one holder, restoring the base percentage after the
// last one.
func drop(token *int64) {
	state.mu.Lock()
	defer state.mu.Unlock()
	delete(state.holders, token)
	if len(state.holders) == 0 {
		state.gen++ // the armed sentinel stops re-arming
		if state.percent != state.base {
			debug.SetGCPercent(state.base)
		}
		state.percent = state.base
		return
	}
	adjustLocked()
}

// Percent reports the GOGC percentage the pacer has in force, and whether
// it is active at all.
func Percent() (int, bool) {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.percent, len(state.holders) > 0
}

// GOGCSet reports whether the operator set the GOGC environment variable,
// which Hold then leaves in charge of the collector's pacing.
func GOGCSet() bool { return os.Getenv("GOGC") != "" }

// hasLiveMetric reports whether this runtime publishes the live heap.
func hasLiveMetric() bool {
	for _, d := range metrics.All() {
		if d.Name == liveMetric {
			return true
		}
	}
	return false
}

// sentinel is an object made unreachable on purpose: the cleanup attached
// to it runs once the collection after it was armed has finished. It holds
// a pointer so that the allocator does not pack it with other small
// objects, which would delay its cleanup.
type sentinel struct {
	_ *sentinel
	_ [2]uintptr
}

// arm attaches the after-collection adjustment to a fresh sentinel.
func arm(gen uint64) {
	runtime.AddCleanup(new(sentinel), afterGC, gen)
}

// afterGC adjusts the pacing from the collection that just ended and arms
// the next sentinel, unless the pacer was stopped (or restarted) since.
func afterGC(gen uint64) {
	state.mu.Lock()
	defer state.mu.Unlock()
	if gen != state.gen || len(state.holders) == 0 {
		return
	}
	adjustLocked()
	arm(gen)
}

// adjustLocked sets the percentage that puts the next collection's goal
// at the largest minimum heap held, never below the base percentage nor
// above MaxPercent. Changes under a twentieth are skipped: setting the
// percentage recomputes the collector's pacing.
func adjustLocked() {
	var minHeap int64
	for _, h := range state.holders {
		minHeap = max(minHeap, h)
	}
	metrics.Read(state.sample)
	var live uint64
	if state.sample[0].Value.Kind() == metrics.KindUint64 {
		live = state.sample[0].Value.Uint64()
	}
	p := percentFor(live, minHeap, state.base)
	if p == state.percent || (state.percent > 0 && math.Abs(float64(p-state.percent)) < float64(state.percent)/20) {
		return
	}
	debug.SetGCPercent(p)
	state.percent = p
}

// heapMinimum is the Go runtime's smallest heap goal at GOGC=100 (4 MiB),
// which it scales by GOGC/100 like the goal itself.
const heapMinimum = 4 << 20

// percentFor is the GOGC percentage whose goal is a heap of minHeap bytes
// over a live heap of live bytes, bounded by base below and MaxPercent
// above. A live heap under the runtime's heap minimum (none measured yet,
// say) counts as that minimum, which the runtime scales by the percentage
// too: the goal then stays under minHeap.
func percentFor(live uint64, minHeap int64, base int) int {
	live = max(live, heapMinimum)
	if minHeap <= int64(live) {
		return base
	}
	p := math.Ceil(float64(uint64(minHeap)-live) * 100 / float64(live))
	if p >= MaxPercent {
		return max(base, MaxPercent)
	}
	return max(base, int(p))
}
