package handlers

import (
	"net/http"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// budgetCheck says whether and where a route's budgets refuse a request.
type budgetCheck uint8

const (
	// budgetOff: the route is not budgeted (or budgets are off).
	budgetOff budgetCheck = iota
	// budgetHere: a spent budget refuses the request in the rate-limit
	// stage (batch submissions and the budgeted routes whose model the
	// proxy does not resolve).
	budgetHere
	// budgetAtModel: the rate-limit stage records the verdict and refuses
	// a request whose plan's first target is priced; the proxy refuses by
	// the same rule every other call (failover targets, the requests it
	// resolves itself).
	budgetAtModel
)

// budgetCheckFor is how budgets apply to rt.
func budgetCheckFor(rt *routes.Route) budgetCheck {
	switch {
	case rt == nil || !rt.Budgeted:
		return budgetOff
	case rt.Served && proxy.DecidesBudget(rt.Shape):
		return budgetAtModel
	}
	return budgetHere
}

// admitBudget checks the budgets of bs before the upstream call and
// returns the caller's user path and true when r may go on. A request the
// response cache answered passes (and is charged nothing later). When a
// spent budget covers the caller, its error is 429 rate_limit_error, code
// budget_exceeded and Retry-After the seconds to the end of that budget's
// period, in the envelope the route's clients expect (Anthropic's on
// /v1/messages). With budgetHere that error is written here and ok is
// false: nothing upstream is called. With budgetAtModel it is recorded in
// info.BudgetExceeded; when the request's plan resolved a priced target
// (reqinfo.Info.BudgetRefusal) it is written here too, else r goes on and
// the proxy applies the same rule to each call it makes. A request whose
// plan's first target is priced is admitted by its worst-case cost
// instead (reserveBudget): it reserves that cost, or is refused when it
// does not fit beside the spend and the reservations in flight.
func admitBudget(bs *budgets.Service, check budgetCheck, lim *userPathAdmission, w http.ResponseWriter, r *http.Request, info *reqinfo.Info) (path string, ok bool) {
	path = info.UserPath
	if path == "" {
		path = userpath.Root
	}
	if info.CacheHit {
		return path, true
	}
	if check == budgetAtModel {
		if p := info.Plan(); p.Settled() {
			if amount, reservable := proxy.WorstCaseCost(p.Target, info.Body()); reservable {
				return path, reserveBudget(bs, amount, path, lim, w, r, info, p)
			}
		}
	}
	admitted, wait, which := bs.Check(path, time.Now())
	if admitted {
		return path, true
	}
	e := budgets.ExceededError(which, path, wait)
	if which != nil {
		info.BudgetRule = &reqinfo.Rule{Subject: which.UserPath, Period: which.Period.String()}
	}
	if check == budgetAtModel {
		info.BudgetExceeded = e
		p := info.Plan()
		if !p.Settled() || info.BudgetRefusal(p.Target.Priced()) == nil {
			return path, true
		}
		refusedAtTarget(info, p)
	}
	apierr.WriteFor(w, r, e)
	return path, false
}

// reserveBudget admits a request whose plan's first target is priced
// when its worst-case cost (amount, proxy.WorstCaseCost) fits every
// budget covering path beside their spend and the reservations of the
// requests in flight, and holds it on info until the request ends
// (chargeBudget settles it). Otherwise it answers 429 budget_exceeded
// with Retry-After the seconds to the end of the refusing budget's
// period and reports false. When the spend is shared, the reservation
// and the user-path rate-limit admission (lim) are one round trip to the
// backend; a request the budget refuses gets that admission back.
func reserveBudget(bs *budgets.Service, amount catalog.Nanos, path string, lim *userPathAdmission, w http.ResponseWriter, r *http.Request, info *reqinfo.Info, p *reqinfo.Plan) bool {
	var (
		res      budgets.Reservation
		admitted bool
		wait     time.Duration
		which    *budgets.Budget
	)
	if call := bs.PrepareReserve(path, amount, time.Now()); call != nil {
		along := limits.Along{Call: call}
		lim.admitAlong(path, &along)
		res, admitted, wait, which = bs.FinishReserve(call, along.Made)
		if !admitted {
			lim.cancel()
		}
	} else {
		res, admitted, wait, which = bs.Reserve(path, amount, time.Now())
	}
	if admitted {
		if res.Held() {
			res.SetRequest(info.UsageID)
			info.SetReservation(&res)
		}
		return true
	}
	e := budgets.ReservationRefusedError(which, path, wait, amount.Float())
	if which != nil {
		info.BudgetRule = &reqinfo.Rule{Subject: which.UserPath, Period: which.Period.String()}
	}
	info.BudgetExceeded = e
	refusedAtTarget(info, p)
	apierr.WriteFor(w, r, e)
	return false
}

// refusedAtTarget names the plan's target on the record of a request
// refused there, as it is for a call the proxy refuses.
func refusedAtTarget(info *reqinfo.Info, p *reqinfo.Plan) {
	info.ResolvedModel, info.ProviderName, info.ProviderType = p.Target.Model, p.Target.Provider, p.Target.ProviderType
	info.Stream = p.Stream
}

// chargeBudget charges the ended request's cost to the budgets covering
// path: the figure the audit usage record carries (reqinfo.Info.Cost), so
// budgets and usage agree. A request admitted with a reservation settles
// it with that cost, or releases it when the request cost nothing known
// (it failed, was cancelled or its client went away before any usage).
// Cache hits and requests of unknown cost (no usage, or a model without a
// price) are not spend.
func chargeBudget(bs *budgets.Service, path string, info *reqinfo.Info) {
	cost := spentBy(info)
	now := time.Now()
	if info.SettleReservation(cost, now) {
		return
	}
	if cost > 0 {
		bs.ChargeFor(path, info.UsageID, cost, now)
	}
}

// spentBy is what the ended request spent for the budgets: its cost when
// known and positive, else 0; a cache hit spent nothing.
func spentBy(info *reqinfo.Info) float64 {
	if !info.CacheHit {
		if c, ok := info.Cost(); ok && c.Total > 0 {
			return c.Total
		}
	}
	return 0
}

// budgetEnd is the end of a budgeted request (bs nil: none): chargeBudget,
// or, when the request holds a reservation in the shared spend store, its
// settlement made in the same round trip as the rate-limit release
// (settleAlong).
type budgetEnd struct {
	bs   *budgets.Service
	path string
	info *reqinfo.Info
	done bool
}

// settleAlong ends the request through release: when its reservation is
// held in the shared store, release is called with the settlement along
// (one round trip for both when the release asks the store anything) and
// the settlement is finished; otherwise release is called alone and the
// budgets are charged later (finish). e nil: release alone.
func (e *budgetEnd) settleAlong(release func(*limits.Along)) {
	if e == nil || e.done {
		release(nil)
		return
	}
	r, ok := e.info.TakeReservation().(*budgets.Reservation)
	if !ok || r == nil {
		release(nil)
		return
	}
	e.done = true
	call := r.PrepareSettle(spentBy(e.info), time.Now())
	if call == nil {
		release(nil)
		return
	}
	along := limits.Along{Call: call}
	release(&along)
	call.Finish(along.Made)
}

// finish charges the budgets unless settleAlong did.
func (e *budgetEnd) finish() {
	if e.bs != nil && !e.done {
		e.done = true
		chargeBudget(e.bs, e.path, e.info)
	}
}
