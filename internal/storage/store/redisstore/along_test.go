package redisstore

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// scriptCall reports a script call (EVAL, EVALSHA): what admissions and
// reservations send, unlike a new connection's handshake.
func scriptCall(cmd redis.Cmder) bool {
	n := cmd.Name()
	return n == "evalsha" || n == "eval"
}

// roundTrips counts the round trips a client makes with scripts: one per
// script call sent alone, one per pipeline of them.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if scriptCall(cmd) {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && scriptCall(cmds[0]) {
			h.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

var _ redis.Hook = (*roundTrips)(nil)

// alongEngine is one "process" for the along tests: a client on a fresh
// prefix of the test Redis, its RateLimits (scripts loaded) and an engine
// on them with rule installed.
func alongEngine(t testing.TB, rule limits.Rule) (*Client, *RateLimits, *limits.Engine) {
	t.Helper()
	url, prefix := redistest.New(t)
	c := openTest(t, url, prefix)
	rl := NewRateLimits(c, RateLimitOptions{})
	rl.warm()
	eng, err := limits.New(limits.Options{TokensEnforced: true, QuotaTemplates: true, Shared: rl, SharedTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.SetConfigRules([]limits.Rule{rule}); err != nil {
		t.Fatal(err)
	}
	return c, rl, eng
}

// TestBudgetReservationRidesAlongAdmission: a budget reservation carried
// by a rate-limit admission on the same server is one round trip for
// both, and each verdict is the one its own call would give.
func TestBudgetReservationRidesAlongAdmission(t *testing.T) {
	now := time.Now().UTC()
	c, rl, eng := alongEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: "minute", MaxRequests: 3})
	bs := reserveService(t, c, now, 0)
	// Warm: the windows exist.
	if r, ok, _, _ := bs.Reserve("/team", catalog.NanosOf(0.01), now); ok {
		r.Settle(0, now)
	}
	hook := &roundTrips{}
	rl.r.AddHook(hook)

	admit := func(amount float64) (budgetOK bool, res budgets.Reservation, rej *limits.Rejection, adm limits.Admission) {
		t.Helper()
		call := bs.PrepareReserve("/team/app", catalog.NanosOf(amount), now)
		if call == nil {
			t.Fatal("no call prepared with a shared spend store")
		}
		along := limits.Along{Call: call}
		before := hook.n.Load()
		adm, rej = eng.AdmitUserPathAlong("/team/app", &along)
		if got := hook.n.Load() - before; got != 1 || !along.Made {
			t.Fatalf("admission with the reservation along: %d round trips, made %v; want 1, true", got, along.Made)
		}
		res, budgetOK, _, _ = bs.FinishReserve(call, along.Made)
		if got := hook.n.Load() - before; got != 1 {
			t.Fatalf("finishing the reservation made %d more round trips", got-1)
		}
		return budgetOK, res, rej, adm
	}
	ok, r1, rej, adm1 := admit(0.6)
	if !ok || rej != nil || !r1.Held() {
		t.Fatalf("first: budget ok %v, rate limit %v", ok, rej)
	}
	// The budget refuses ($0.60 held, $0.50 more passes $1): the
	// admission is not attempted, so it neither counts nor refuses.
	ok, _, rej, _ = admit(0.5)
	if ok || rej != nil {
		t.Fatalf("second: budget ok %v (want refused), rate limit %v (want none)", ok, rej)
	}
	ok, r3, rej, adm3 := admit(0.3)
	if !ok || rej != nil {
		t.Fatalf("third: budget ok %v, rate limit %v", ok, rej)
	}
	r3.Settle(0, now)
	r1.Settle(0, now)
	// The refused second request took no request: the third of 3 a
	// minute is still free.
	ok, r4, rej, adm4 := admit(0.1)
	if !ok || rej != nil {
		t.Fatalf("fourth: budget ok %v, rate limit %v", ok, rej)
	}
	r4.Settle(0, now)
	// The rate limit refuses a request the budget admits: its
	// reservation is given back in the same step.
	ok, r5, rej, _ := admit(0.9)
	if !ok || rej == nil || r5.Held() {
		t.Fatalf("fifth: budget ok %v held %v, rate limit %v (want refused, nothing held)", ok, r5.Held(), rej)
	}
	if r, ok, _, _ := bs.Reserve("/team/app", catalog.NanosOf(1), now); !ok {
		t.Fatal("$1 does not fit an unspent $1 budget: the refused request's reservation was kept")
	} else {
		r.Settle(0, now)
	}
	adm1.Done(0)
	adm3.Done(0)
	adm4.Done(0)
}

// TestAlongOnAnotherServerIsLeft: a reservation for a store on another
// Redis server is not made by the admission; the caller makes it.
func TestAlongOnAnotherServerIsLeft(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	rl := NewRateLimits(openTest(t, url, prefix), RateLimitOptions{})
	eng, err := limits.New(limits.Options{Shared: rl, SharedTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.SetConfigRules([]limits.Rule{{Scope: limits.ScopeUserPath, Subject: "/", Period: "minute", MaxRequests: 10}}); err != nil {
		t.Fatal(err)
	}
	bs := reserveService(t, openTest(t, url, prefix), now, 0)
	call := bs.PrepareReserve("/team", catalog.NanosOf(0.1), now)
	along := limits.Along{Call: call}
	adm, rej := eng.AdmitUserPathAlong("/team", &along)
	if rej != nil || along.Made {
		t.Fatalf("rejected %v, made %v: another client's call was made", rej, along.Made)
	}
	adm.Done(0)
	r, ok, _, _ := bs.FinishReserve(call, false)
	if !ok || !r.Held() {
		t.Fatal("the caller's own call did not reserve")
	}
	r.Settle(0, now)
}

// TestAlongAfterSpendLost: when the server lost the budget windows, the
// admission carrying the reservation is still made, and the reservation
// is made again once the windows are restored.
func TestAlongAfterSpendLost(t *testing.T) {
	now := time.Now().UTC()
	c, _, eng := alongEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: "minute", MaxRequests: 10})
	bs := reserveService(t, c, now, 0)
	if r, ok, _, _ := bs.Reserve("/team", catalog.NanosOf(0.01), now); ok {
		r.Settle(0, now)
	}
	if err := c.R.Del(context.Background(), NewBudgets(c).epochKey()).Err(); err != nil {
		t.Fatal(err)
	}
	call := bs.PrepareReserve("/team", catalog.NanosOf(0.5), now)
	along := limits.Along{Call: call}
	adm, rej := eng.AdmitUserPathAlong("/team", &along)
	if rej != nil || !along.Made || along.Vetoed || !errors.Is(call.Err, budgets.ErrSpendLost) {
		t.Fatalf("rejected %v, made %v, vetoed %v, reservation error %v", rej, along.Made, along.Vetoed, call.Err)
	}
	defer adm.Done(0)
	r, ok, _, _ := bs.FinishReserve(call, true)
	if !ok || !r.Held() {
		t.Fatal("the reservation was not made again after the windows were restored")
	}
	if _, ok, _, _ := bs.Reserve("/team", catalog.NanosOf(0.6), now); ok {
		t.Fatal("$0.60 fits beside the $0.50 held on a $1 budget")
	}
	r.Settle(0, now)
}

// TestSettlementRidesAlongRelease: a reservation's settlement carried by
// the release of an admission that holds a slot is one round trip for
// both; the cost is charged and the slot given back.
func TestSettlementRidesAlongRelease(t *testing.T) {
	now := time.Now().UTC()
	c, rl, eng := alongEngine(t, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodConcurrent, MaxRequests: 1})
	bs := reserveService(t, c, now, 0)
	hook := &roundTrips{}
	rl.r.AddHook(hook)
	call := bs.PrepareReserve("/team/app", catalog.NanosOf(0.5), now)
	along := limits.Along{Call: call}
	adm, rej := eng.AdmitUserPathAlong("/team/app", &along)
	r, ok, _, _ := bs.FinishReserve(call, along.Made)
	if rej != nil || !ok || !r.Held() {
		t.Fatalf("refused: rate limit %v, budget ok %v", rej, ok)
	}
	if _, rej := eng.AdmitUserPath("/team/app"); rej == nil {
		t.Fatal("a second request took the one slot")
	}
	before := hook.n.Load()
	settle := r.PrepareSettle(0.25, now)
	if settle == nil {
		t.Fatal("no settlement prepared for a reservation held in Redis")
	}
	end := limits.Along{Call: settle}
	adm.DoneAlong(10, &end)
	if got := hook.n.Load() - before; got != 1 || !end.Made {
		t.Fatalf("release with the settlement along: %d round trips, made %v; want 1, true", got, end.Made)
	}
	settle.Finish(end.Made)
	if settle.Err != nil {
		t.Fatal(settle.Err)
	}
	if es := bs.List(); es[1].UserPath != "/team" || es[1].Spent != 0.25 {
		t.Fatalf("spend after settling: %+v", es[1])
	}
	adm2, rej := eng.AdmitUserPath("/team/app")
	if rej != nil {
		t.Fatalf("the slot was not given back: %v", rej)
	}
	adm2.Done(0)
}
