package redisstore

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// reserveService is a budgets service whose spend lives in c, with a
// daily $1 budget on /team, an hourly $1 per_child template on
// /customers and the reservation lease given.
func reserveService(t *testing.T, c *Client, now time.Time, lease time.Duration) *budgets.Service {
	t.Helper()
	s, err := budgets.New(budgets.Options{Spend: NewBudgets(c), Now: func() time.Time { return now }, QuotaTemplates: true, ReservationLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(budgets.Key{UserPath: "/team", Period: budgets.Daily}, 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(budgets.Key{UserPath: "/customers", Period: budgets.Hourly}, 1, true); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBudgetReservationsSharedThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	p1 := reserveService(t, openTest(t, url, prefix), now, 0)
	p2 := reserveService(t, openTest(t, url, prefix), now, 0)
	r1, ok, _, _ := p1.Reserve("/team/app", catalog.NanosOf(0.6), now)
	if !ok {
		t.Fatal("refused $0.60 of $1")
	}
	if _, ok, wait, which := p2.Reserve("/team/x", catalog.NanosOf(0.5), now); ok || which == nil || which.UserPath != "/team" || wait <= 0 {
		t.Fatalf("p2 admitted $0.50 past p1's $0.60 reservation: ok %v which %+v wait %v", ok, which, wait)
	}
	r2, ok, _, _ := p2.Reserve("/team/x", catalog.NanosOf(0.4), now)
	if !ok {
		t.Fatal("p2 refused $0.40 that fits")
	}
	r1.Settle(0.25, now) // real cost below the reservation
	r3, ok, _, _ := p2.Reserve("/team", catalog.NanosOf(0.35), now)
	if !ok {
		t.Fatal("the settled reservation was not given back")
	}
	r2.Settle(0, now) // failed: released, nothing charged
	r3.Settle(0.35, now)
	for i, s := range []*budgets.Service{p1, p2} {
		if es := s.List(); es[1].UserPath != "/team" || es[1].Spent != 0.6 {
			t.Fatalf("process %d lists %+v", i+1, es[1])
		}
	}
	// Template children reserve apart.
	ra, ok, _, _ := p1.Reserve("/customers/alice", catalog.NanosOf(1), now)
	if !ok {
		t.Fatal("alice refused")
	}
	if _, ok, _, _ := p2.Reserve("/customers/alice/app", 1, now); ok {
		t.Fatal("alice's child admitted past her reservation")
	}
	if _, ok, _, _ := p2.Reserve("/customers/bob", catalog.NanosOf(1), now); !ok {
		t.Fatal("bob refused on alice's reservation")
	}
	ra.Settle(0, now)
}

// TestBudgetReservationLease: a process that dies holding a reservation
// gives it back once the lease has passed.
func TestBudgetReservationLease(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	dead := reserveService(t, openTest(t, url, prefix), now, time.Millisecond)
	live := reserveService(t, openTest(t, url, prefix), now, 0)
	if _, ok, _, _ := dead.Reserve("/team", catalog.NanosOf(1), now); !ok {
		t.Fatal("refused")
	}
	// never settled: its process died
	time.Sleep(20 * time.Millisecond)
	r, ok, _, _ := live.Reserve("/team", catalog.NanosOf(1), now)
	if !ok {
		t.Fatal("the dead process's reservation outlived its lease")
	}
	if _, ok, _, _ := live.Reserve("/team", 1, now); ok {
		t.Fatal("admitted past a live reservation")
	}
	r.Settle(1, now)
}

// TestBudgetReservationsConcurrentProcesses: 60 goroutines over three
// processes, each request costing exactly its reservation, admit exactly
// cap/cost requests and spend exactly the cap.
func TestBudgetReservationsConcurrentProcesses(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	var ps []*budgets.Service
	for range 3 {
		ps = append(ps, reserveService(t, openTest(t, url, prefix), now, 0))
	}
	const cost = 0.07 // 14 fit in $1
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 3 {
				r, ok, _, _ := ps[g%3].Reserve("/team/app", catalog.NanosOf(cost), now)
				if ok {
					admitted.Add(1)
					r.Settle(cost, now)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	if got := admitted.Load(); got != 14 {
		t.Fatalf("admitted %d, want 14", got)
	}
	for _, e := range ps[0].List() {
		if e.UserPath == "/team" && catalog.NanosOf(float64(e.Spent)) != catalog.NanosOf(14*cost) {
			t.Fatalf("spent %v, want %v", e.Spent, 14*cost)
		}
	}
	if n := ps[0].Tracker().SpendFallbacks(); n != 0 {
		t.Fatalf("%d fallbacks", n)
	}
}
