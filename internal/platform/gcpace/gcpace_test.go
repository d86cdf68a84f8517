package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		live    uint64
		minHeap int64
		base    int
		want    int
	}{
		{live: 8 << 20, minHeap: 32 << 20, base: 100, want: 300},
		{live: 12 << 20, minHeap: 32 << 20, base: 100, want: 167}, // rounded up
		{live: 16 << 20, minHeap: 32 << 20, base: 100, want: 100}, // twice the live heap: the default goal
		{live: 48 << 20, minHeap: 32 << 20, base: 100, want: 100}, // the default goal is larger
		{live: 8 << 20, minHeap: 32 << 20, base: 400, want: 400},  // never below the base
		{live: 0, minHeap: 32 << 20, base: 100, want: 700},        // nothing measured: the 4 MiB minimum
		{live: 1 << 20, minHeap: 32 << 20, base: 100, want: 700},  // under the minimum: counts as it
		{live: 4 << 20, minHeap: 1 << 30, base: 100, want: 2000},  // capped
		{live: 40 << 20, minHeap: 32 << 20, base: 50, want: 50},   // a lower base stays when the minimum is reached
	} {
		if got := percentFor(c.live, c.minHeap, c.base); got != c.want {
			t.Errorf("percentFor(%d, %d, %d) = %d, want %d", c.live, c.minHeap, c.base, got, c.want)
		}
	}
}

// gcPercent reads the collector's percentage without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestHoldRaisesThePercentAndReleaseRestoresIt(t *testing.T) {
	t.Setenv("GOGC", "") // an empty GOGC is no explicit setting
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()

	release, active := Hold(256 << 20)
	if !active {
		t.Fatal("Hold is not active")
	}
	// A live heap of at most a few tens of MiB needs far more than twice
	// itself to reach a 256 MiB heap.
	if p := gcPercent(); p <= 400 {
		t.Fatalf("percent after Hold = %d, want > 400", p)
	}
	if p, on := Percent(); !on || p != gcPercent() {
		t.Fatalf("Percent() = %d, %v; runtime has %d", p, on, gcPercent())
	}

	// A second, smaller holder changes nothing; the larger one is in force
	// until it leaves.
	release2, _ := Hold(1 << 20)
	before := gcPercent()
	release()
	release() // a second call is harmless
	if p := gcPercent(); p >= before {
		t.Fatalf("percent with only the 1 MiB holder = %d, want below %d", p, before)
	}
	release2()
	if p := gcPercent(); p != 100 {
		t.Fatalf("percent after the last release = %d, want the base 100", p)
	}
	if _, on := Percent(); on {
		t.Fatal("Percent reports the pacer active after the last release")
	}
}

func TestPacerFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	release, _ := Hold(64 << 20)
	defer release()
	small, _ := Percent()

	// Keep 128 MiB live: after the next collections the default goal is
	// above the 64 MiB minimum, so the base percentage returns.
	keep := make([][]byte, 128)
	for i := range keep {
		keep[i] = make([]byte, 1<<20)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, _ := Percent(); p == 100 {
			break
		}
		if time.Now().After(deadline) {
			p, _ := Percent()
			t.Fatalf("percent with 128 MiB live = %d (was %d), want 100", p, small)
		}
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	}
	runtime.KeepAlive(keep)
	if small <= 100 {
		t.Fatalf("percent with a small live heap = %d, want above 100", small)
	}
}

func TestHoldLeavesAnExplicitGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "100")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	release, active := Hold(64 << 20)
	defer release()
	if active {
		t.Fatal("Hold is active although GOGC is set")
	}
	if p := gcPercent(); p != 100 {
		t.Fatalf("percent = %d, want 100", p)
	}
}

func TestHoldWithoutMinimumOrWithTheCollectorOff(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if _, active := Hold(0); active {
		t.Fatal("Hold(0) is active")
	}
	debug.SetGCPercent(-1)
	release, active := Hold(64 << 20)
	release()
	if active {
		t.Fatal("Hold is active with the collector off")
	}
	if p := gcPercent(); p != -1 {
		t.Fatalf("percent = %d, want -1 (off) left alone", p)
	}
}
