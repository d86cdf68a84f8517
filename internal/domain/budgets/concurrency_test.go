package budgets

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestTrackerConcurrent: charges from many goroutines, interleaved with
// checks, amount edits, sweeps and reads, are all counted exactly (run
// with -race).
func TestTrackerConcurrent(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	const workers, per, cost = 8, 500, 0.25
	total := float64(workers * per * cost)
	list := func(amount float64) []Budget {
		return []Budget{
			{UserPath: "/", Period: Daily, Amount: total, Source: SourceManual},
			{UserPath: "/customers", Period: Daily, Amount: amount, PerChild: true, Source: SourceManual},
			{UserPath: "/customers/c0", Period: Hourly, Amount: amount, Source: SourceManual},
		}
	}
	tr := NewTracker()
	if _, err := tr.Set(list(1e9), DefaultSettings(), now); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := fmt.Sprintf("/customers/c%d/app", w%4)
			for i := range per {
				tr.Charge(path, cost, now.Add(time.Duration(i)*time.Millisecond))
				tr.Check(path, now)
			}
		}()
	}
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { // admin traffic while charging
		defer bg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := tr.Set(list(1e9+float64(i)), DefaultSettings(), now); err != nil {
				t.Error(err)
				return
			}
			tr.Sweep(now)
			tr.ChildSpend(Key{"/customers", Daily}, now)
			tr.Spent(Key{"/", Daily}, "/", now)
		}
	}()
	wg.Wait()
	close(stop)
	bg.Wait()

	if got := spentOf(t, tr, Key{"/", Daily}, "/", now); got != total {
		t.Fatalf("root spent %v, want %v", got, total)
	}
	kids, _ := tr.ChildSpend(Key{"/customers", Daily}, now)
	for c := range 4 {
		if got, want := kids[fmt.Sprintf("/customers/c%d", c)], total/4; got != want {
			t.Fatalf("child c%d spent %v, want %v (%v)", c, got, want, kids)
		}
	}
	if got := spentOf(t, tr, Key{"/customers/c0", Hourly}, "/customers/c0", now); got != total/4 {
		t.Fatalf("c0 spent %v", got)
	}
	mustCheck(t, tr, "/anyone", now, false) // the root budget is exactly spent
}

// TestTrackerConcurrentResets: resets and rebuilds racing with charges
// and checks stay consistent (for -race) and end with what was charged
// after the last reset.
func TestTrackerConcurrentResets(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/team", Period: Daily, Amount: 1e9},
		Budget{UserPath: "/c", Period: Daily, Amount: 1e9, PerChild: true})
	src := &fakeSource{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				tr.Charge("/team", 1, now)
				tr.Charge(fmt.Sprintf("/c/%d", (w+i)%7), 1, now)
				tr.Check("/c/3/x", now)
				if i%50 == 0 {
					tr.Reset(Key{"/c", Daily}, now)
					tr.RebuildKeys(src, now, []Key{{"/team", Daily}})
					tr.ResetAll(now)
				}
			}
		}()
	}
	wg.Wait()
	tr.ResetAll(now)
	tr.Charge("/team", 2, now)
	if got := spentOf(t, tr, Key{"/team", Daily}, "/team", now); got != 2 {
		t.Fatalf("spent %v", got)
	}
}
