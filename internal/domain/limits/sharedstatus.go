package limits

import (
	"context"
	"time"
)

// sharedUsage replaces the usage in sts with the Shared backend's counts,
// in one call, when there is a backend that answers; ids[i] names the
// shared counter of sts[i] ("" keeps its local usage). On failure the
// local usage stays and the backend is marked down.
func (e *Engine) sharedUsage(sts []RuleStatus, ids []string) {
	if !e.SharedHealthy() {
		return
	}
	nowMs := floorDiv(e.nowNanos(), int64(time.Millisecond))
	req := SharedAdmission{Now: nowMs}
	var which []int
	for i, id := range ids {
		if id != "" {
			req.Counters = append(req.Counters, SharedCounter{ID: id, Period: sts[i].Key.Duration()})
			which = append(which, i)
		}
	}
	if len(which) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.sharedTimeout)
	err := e.shared.Peek(ctx, &req)
	cancel()
	if err != nil {
		e.sharedError(err)
		return
	}
	now := nowMs * int64(time.Millisecond)
	for j, i := range which {
		sc, u := &req.Counters[j], &sts[i].Usage
		if sc.Period == 0 {
			u.InFlight = sc.InFlight
			continue
		}
		c := counter{period: int64(sc.Period), idx: sc.Window, curReq: sc.Requests, prevReq: sc.PrevRequests, curTok: sc.Tokens, prevTok: sc.PrevTokens}
		reqW, tokW := c.peek(now)
		inFlight := u.InFlight
		*u = emptyUsage(sc.Period, now)
		u.RequestsUsed, u.TokensUsed, u.InFlight = reqW.used(), tokW.used(), inFlight
	}
}
