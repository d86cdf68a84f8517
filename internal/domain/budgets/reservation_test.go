package budgets

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// reservedOf is the in-memory reservations of budget k for userPath.
func reservedOf(t testing.TB, tr *Tracker, k Key, userPath string) float64 {
	t.Helper()
	v, err := tr.Reserved(k, userPath)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func usd(v float64) catalog.Nanos { return catalog.NanosOf(v) }

// TestReserveSettleRelease: reservations count against the cap until
// settled; settling charges the real cost, releasing charges nothing, and
// only the first settle acts.
func TestReserveSettleRelease(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	k := Key{"/team", Daily}
	a, ok, _, _ := tr.Reserve("/team/app", usd(0.4), now)
	if !ok || !a.Held() || a.Amount() != 0.4 {
		t.Fatalf("first reservation: ok %v held %v amount %v", ok, a.Held(), a.Amount())
	}
	b, ok, _, _ := tr.Reserve("/team", usd(0.6), now)
	if !ok {
		t.Fatal("0.4 + 0.6 fits a cap of 1 exactly, refused")
	}
	if _, ok, wait, which := tr.Reserve("/team/x", usd(1e-9), now); ok || which == nil || which.UserPath != "/team" || wait != 14*time.Hour {
		t.Fatalf("over the cap: ok %v which %+v wait %v", ok, which, wait)
	}
	if got := reservedOf(t, tr, k, "/team"); got != 1 {
		t.Fatalf("reserved %v, want 1", got)
	}
	// Reservations are not spend: Check still admits.
	mustCheck(t, tr, "/team", now, true)

	a.Settle(0.1, now)
	a.Settle(0.3, now) // settled already: nothing
	if a.Held() {
		t.Fatal("settled reservation still held")
	}
	if got := spentOf(t, tr, k, "/team", now); got != 0.1 {
		t.Fatalf("spent %v, want 0.1", got)
	}
	if got := reservedOf(t, tr, k, "/team"); got != 0.6 {
		t.Fatalf("reserved %v, want 0.6", got)
	}
	c, ok, _, _ := tr.Reserve("/team", usd(0.3), now)
	if !ok {
		t.Fatal("0.1 spent + 0.6 + 0.3 fits 1, refused")
	}
	b.Settle(0, now) // failed: released, nothing charged
	c.Settle(0.9, now)
	if got := spentOf(t, tr, k, "/team", now); got != 1 {
		t.Fatalf("spent %v, want 1", got)
	}
	if got := reservedOf(t, tr, k, "/team"); got != 0 {
		t.Fatalf("reserved %v after settling all, want 0", got)
	}
	if _, ok, _, _ := tr.Reserve("/team", 0, now); ok {
		t.Fatal("a spent budget admitted a reservation of 0")
	}
	var zero Reservation
	zero.Settle(1, now) // holds nothing: nothing charged
	if got := spentOf(t, tr, k, "/team", now); got != 1 {
		t.Fatalf("the zero reservation charged: spent %v", got)
	}
}

// TestReserveRefusalGivesBack: a reservation refused by one budget holds
// nothing on the others, and names the refusing budget whose period ends
// last.
func TestReserveRefusalGivesBack(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/", Period: Hourly, Amount: 10},
		Budget{UserPath: "/customers", Period: Daily, Amount: 1, PerChild: true},
		Budget{UserPath: "/customers/alice", Period: Monthly, Amount: 1})
	held, ok, _, _ := tr.Reserve("/customers/alice/app", usd(0.8), now)
	if !ok {
		t.Fatal("refused")
	}
	_, ok, wait, which := tr.Reserve("/customers/alice", usd(0.5), now)
	if ok || which == nil || which.UserPath != "/customers/alice" || which.Period != Monthly {
		t.Fatalf("ok %v which %+v", ok, which)
	}
	if want := ts(t, "2026-12-01T00:00:00Z").Sub(now); wait != want {
		t.Fatalf("wait %v, want %v (the monthly budget's end)", wait, want)
	}
	if got := reservedOf(t, tr, Key{"/", Hourly}, "/"); got != 0.8 {
		t.Fatalf("root reserved %v after a refusal, want 0.8", got)
	}
	// Bob is another child of the template: his own cap.
	if _, ok, _, _ := tr.Reserve("/customers/bob", usd(0.9), now); !ok {
		t.Fatal("bob refused on alice's reservation")
	}
	if got := reservedOf(t, tr, Key{"/customers", Daily}, "/customers/alice"); got != 0.8 {
		t.Fatalf("alice's child reserved %v, want 0.8", got)
	}
	// A swept template keeps a child that holds a reservation.
	tr.Sweep(now)
	held.Settle(0.8, now)
	if got := spentOf(t, tr, Key{"/customers", Daily}, "/customers/alice", now); got != 0.8 {
		t.Fatalf("alice spent %v, want 0.8", got)
	}
}

// TestReserveConcurrentNeverPassesCap: many goroutines reserving and
// settling at the exact reserved cost admit exactly cap/cost requests
// and spend exactly the cap (run with -race).
func TestReserveConcurrentNeverPassesCap(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	const cost, fit = 0.003, 25
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/", Period: Daily, Amount: 100},
		Budget{UserPath: "/customers", Period: Daily, Amount: cost * fit, PerChild: true},
		Budget{UserPath: "/customers/c0", Period: Hourly, Amount: 100})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 20 {
				r, ok, _, _ := tr.Reserve("/customers/c0/app", usd(cost), now)
				if !ok {
					continue
				}
				admitted.Add(1)
				if w%2 == 0 {
					tr.Sweep(now)
				}
				r.Settle(cost, now)
			}
		}()
	}
	close(start)
	wg.Wait()
	if got := admitted.Load(); got != fit {
		t.Fatalf("admitted %d, want %d", got, fit)
	}
	if got, want := usd(spentOf(t, tr, Key{"/customers", Daily}, "/customers/c0", now)), usd(cost*fit); got != want {
		t.Fatalf("spent %v, want %v", got, want)
	}
	if got := reservedOf(t, tr, Key{"/", Daily}, "/"); got != 0 {
		t.Fatalf("reserved %v left", got)
	}
}

// TestReserveAcrossBudgetEdits: a reservation made before the budgets
// changed is given back and its cost charged to the budgets of now.
func TestReserveAcrossBudgetEdits(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now, Budget{UserPath: "/team", Period: Daily, Amount: 1, Source: SourceManual})
	r, ok, _, _ := tr.Reserve("/team", usd(0.5), now)
	if !ok {
		t.Fatal("refused")
	}
	if _, err := tr.Set([]Budget{{UserPath: "/team", Period: Daily, Amount: 2, Source: SourceManual}}, DefaultSettings(), now); err != nil {
		t.Fatal(err)
	}
	if got := reservedOf(t, tr, Key{"/team", Daily}, "/team"); got != 0.5 {
		t.Fatalf("an amount edit dropped the reservation: %v", got)
	}
	r.Settle(0.25, now)
	if got := spentOf(t, tr, Key{"/team", Daily}, "/team", now); got != 0.25 {
		t.Fatalf("spent %v", got)
	}
	if got := reservedOf(t, tr, Key{"/team", Daily}, "/team"); got != 0 {
		t.Fatalf("reserved %v", got)
	}
}

// TestReserveAllocatesNothing: the in-memory check and reservation, and
// its settlement, allocate nothing.
func TestReserveAllocatesNothing(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	tr := newTestTracker(t, DefaultSettings(), now,
		Budget{UserPath: "/", Period: Daily, Amount: 1e9},
		Budget{UserPath: "/customers", Period: Monthly, Amount: 1e9, PerChild: true})
	tr.Charge("/customers/alice/app", 0.01, now)
	if n := testing.AllocsPerRun(100, func() {
		r, ok, _, _ := tr.Reserve("/customers/alice/app", 1000, now)
		if !ok {
			t.Fatal("refused")
		}
		r.Settle(1e-6, now)
	}); n != 0 {
		t.Fatalf("%v allocations per reserve and settle", n)
	}
}

// TestReserveShared: two trackers over one store see each other's
// reservations; a store that fails falls back to memory, and settling
// gives back in the store.
func TestReserveShared(t *testing.T) {
	now := ts(t, "2026-11-23T10:00:00Z")
	st := newMemSpend()
	a, b := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	ra, ok, _, _ := a.Reserve("/team", usd(0.7), now)
	if !ok {
		t.Fatal("a refused")
	}
	if _, ok, wait, which := b.Reserve("/team/x", usd(0.5), now); ok || which == nil || wait != 14*time.Hour {
		t.Fatalf("b admitted past a's reservation: ok %v which %+v wait %v", ok, which, wait)
	}
	rb, ok, _, _ := b.Reserve("/team/x", usd(0.3), now)
	if !ok {
		t.Fatal("b refused what fits")
	}
	if got := st.held(); got != usd(1) {
		t.Fatalf("store holds %v", got)
	}
	ra.Settle(0.2, now)
	rb.Settle(0, now)
	if got := st.held(); got != 0 {
		t.Fatalf("store holds %v after settling", got)
	}
	if got := spentOf(t, b, Key{"/team", Daily}, "/team", now); got != 0.2 {
		t.Fatalf("b sees spend %v", got)
	}
	// The store fails: reservations are held in memory, settled there
	// and the charge owed.
	st.down.Store(true)
	rm, ok, _, _ := a.Reserve("/team", usd(0.8), now)
	if !ok {
		t.Fatal("refused in memory")
	}
	if _, ok, _, _ := a.Reserve("/team", usd(0.1), now); ok {
		t.Fatal("memory admitted past the cap")
	}
	rm.Settle(0.5, now)
	if got := reservedOf(t, a, Key{"/team", Daily}, "/team"); got != 0 {
		t.Fatalf("memory holds %v", got)
	}
	if a.SpendFallbacks() == 0 {
		t.Fatal("no fallback counted")
	}
}
