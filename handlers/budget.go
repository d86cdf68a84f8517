package handlers

import (
	"net/http"
	"time"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/budgets"
	"github.com/modelgate/modelgate/reqinfo"
	"github.com/modelgate/modelgate/userpath"
)

// admitBudget checks the budgets of bs before the upstream call and
// returns the caller's user path and true when r may go on. A request the
// response cache answered passes (and is charged nothing later). One a
// spent budget covers is answered here with 429 rate_limit_error, code
// budget_exceeded and Retry-After the seconds to the end of that budget's
// period, in the envelope the route's clients expect (Anthropic's on
// /v1/messages), and ok is false: nothing upstream is called.
func admitBudget(bs *budgets.Service, w http.ResponseWriter, r *http.Request, info *reqinfo.Info) (path string, ok bool) {
	path = info.UserPath
	if path == "" {
		path = userpath.Root
	}
	if info.CacheHit {
		return path, true
	}
	admitted, wait, which := bs.Check(path, time.Now())
	if !admitted {
		apierr.WriteFor(w, r, budgets.ExceededError(which, path, wait))
		return path, false
	}
	return path, true
}

// chargeBudget charges the completed request's cost to the budgets
// covering path: the figure the audit usage record carries
// (reqinfo.Info.Cost), so budgets and usage agree. Cache hits and requests of unknown cost (no usage, or a
// model without a price) are not spend.
func chargeBudget(bs *budgets.Service, path string, info *reqinfo.Info) {
	if info.CacheHit {
		return
	}
	if c, ok := info.Cost(); ok && c.Total > 0 {
		bs.Charge(path, c.Total, time.Now())
	}
}
