package limits

// Shared admission.
//
// With a Shared backend every admission is one call to it: the backend
// checks and consumes the counters of all matching rules atomically, and
// returns their state, from which the Engine builds the x-ratelimit-*
// headers or the Rejection exactly as for in-memory counters. The state is
// also copied into the local counters, so that TargetAvailable sees the
// shared counts as of this process's last admission without asking the
// backend (the usage listings ask it, see sharedstatus.go).
//
// When a backend call fails (an error, or a call past SharedTimeout) that
// admission is decided with the local counters; a refused connection, or
// timeoutsBeforeDown timeouts in a row, mark the backend down: the Engine
// then admits with its local counters without asking it, per process,
// counting each such admission (SharedFallbacks) and warning at most every
// fallbackWarnEvery; fail-closed it refuses with Rejection.Unavailable
// instead. A probe pings the backend every probeEvery and switches back as
// soon as it answers. Slots taken while down are local and released
// locally.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// DefaultSharedTimeout bounds a call to the Shared backend on the request
// path when Options.SharedTimeout is 0. It is generous on purpose: a call
// that times out is decided with the local counters, which lets a few
// more requests through across processes than the cap, so only a backend
// that is really stuck should reach it; a loaded host can delay a healthy
// answer by tens of milliseconds.
const DefaultSharedTimeout = time.Second

// probeEvery is how often a backend that failed is pinged.
const probeEvery = 500 * time.Millisecond

// probeTimeout bounds one ping of the probe.
const probeTimeout = time.Second

// fallbackWarnEvery is the shortest interval between two warnings about
// admissions counted per process.
const fallbackWarnEvery = 10 * time.Second

// busyFor is how long a concurrency counter found full by a shared
// admission is reported saturated by TargetAvailable.
const busyFor = time.Second

// errSharedDown is the error of a backend already known to be down.
var errSharedDown = errors.New("shared counter store does not answer")

// SetSharedFailClosed sets whether requests are refused (true) or counted
// per process (false) while the Shared backend does not answer.
func (e *Engine) SetSharedFailClosed(on bool) { e.failClosed.Store(on) }

// SharedFallbacks is the number of admissions decided without the Shared
// backend because it did not answer (refusals when fail-closed included).
func (e *Engine) SharedFallbacks() uint64 { return e.fallbacks.Load() }

// SharedHealthy reports whether the Shared backend is configured and
// answering.
func (e *Engine) SharedHealthy() bool { return e.shared != nil && !e.sharedDown.Load() }

// unavailable is the fail-closed refusal.
func unavailable() *Rejection {
	return &Rejection{
		RetryAfter:  time.Second,
		Unavailable: true,
		Reason:      "rate limits are unavailable: the shared counter store does not answer",
	}
}

// admitVia admits ms through the Shared backend when there is one and it
// answers. handled is false when the caller must admit with the local
// counters (no backend, or fallback).
func (e *Engine) admitVia(ms []match, a *Admission, along *Along) (rej *Rejection, handled bool) {
	if e.shared == nil {
		return nil, false
	}
	ms = sortByID(ms)
	if along == nil && e.admitLeased(ms, a, e.tokensEnforced.Load()) {
		return nil, true
	}
	err := errSharedDown
	if !e.sharedDown.Load() {
		rej, err = e.admitShared(ms, a, along)
		if err == nil {
			return rej, true
		}
		e.sharedError(err)
	}
	e.fallbacks.Add(1)
	e.warnFallback(err)
	if e.failClosed.Load() {
		return unavailable(), true
	}
	return nil, false
}

// admitShared asks the backend to admit ms (sorted and deduplicated by
// sortByID), with along when not nil, and fills in a from its answer.
func (e *Engine) admitShared(ms []match, a *Admission, along *Along) (*Rejection, error) {
	tokens := e.tokensEnforced.Load()
	nowMs := floorDiv(e.nowNanos(), int64(time.Millisecond))
	req := SharedAdmission{Now: nowMs, Tokens: tokens, Counters: make([]SharedCounter, len(ms)), Along: along}
	for i := range ms {
		c, r := ms[i].c, &ms[i].rs.rule
		req.Counters[i] = SharedCounter{ID: c.sid, Period: time.Duration(c.period), MaxRequests: r.MaxRequests, MaxTokens: r.MaxTokens}
	}
	asked := prepareBatch(ms, &req, nowMs*int64(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), e.sharedTimeout)
	err := e.shared.Admit(ctx, &req)
	cancel()
	finishBatch(ms, &req, asked)
	if err != nil {
		return nil, err
	}
	if along != nil && along.Vetoed {
		// Not attempted: the caller refuses the request for along's sake.
		return nil, nil
	}
	// The backend works in milliseconds; so do the views below, so that
	// headers and Retry-After agree with its decision.
	now := nowMs * int64(time.Millisecond)
	views := make([]counter, len(ms))
	for i := range ms {
		c, sc, v := ms[i].c, &req.Counters[i], &views[i]
		v.period, v.child = c.period, c.child
		if c.gauge() {
			v.inFlight.Store(sc.InFlight)
			if !req.Admitted && ms[i].rs.rule.MaxRequests > 0 && sc.InFlight >= ms[i].rs.rule.MaxRequests {
				ms[i].full = true
				c.busyUntil.Store(now + int64(busyFor))
			}
		} else {
			v.idx, v.curReq, v.prevReq, v.curTok, v.prevTok = sc.Window, sc.Requests, sc.PrevRequests, sc.Tokens, sc.PrevTokens
			c.mirror(v)
		}
		if req.Admitted {
			a.add(c)
			if ms[i].rs.rule.MaxTokens > 0 {
				a.tokCap = true
			}
		}
		ms[i].c = v
	}
	if !req.Admitted {
		return e.reject(ms, now, tokens), nil
	}
	a.shared, a.lease = true, req.Lease
	a.admittedAt, a.admittedMs = now, nowMs
	for i := range ms {
		c, r := ms[i].c, &ms[i].rs.rule
		if c.gauge() {
			a.h.addConcurrency(r.MaxRequests, c.inFlight.Load())
			continue
		}
		if r.MaxRequests > 0 {
			a.h.offerRequests(r.MaxRequests, c.reqWindow(now).used(), c, now)
		}
		if tokens && r.MaxTokens > 0 {
			a.h.offerTokens(r.MaxTokens, c.tokWindow(now).used(), c, now)
		}
	}
	return nil, nil
}

// mirror copies the shared state v into c unless c already holds a later
// window. Snapshots do not see it (c is not marked dirty).
func (c *counter) mirror(v *counter) {
	c.mu.Lock()
	if v.idx >= c.idx {
		c.idx = v.idx
		c.curReq, c.prevReq, c.curTok, c.prevTok = v.curReq, v.prevReq, v.curTok, v.prevTok
	}
	c.mu.Unlock()
}

// releaseShared ends a shared admission: it charges tokens (or, cancel,
// gives the request back) and returns the lease, in one backend call, and
// skips the call when there is nothing to do.
func (a *Admission) releaseShared(tokens int64, cancel bool, along *Along) {
	if a.lease == "" && !cancel && (tokens <= 0 || !a.tokCap) {
		return
	}
	e := a.e
	nowMs := floorDiv(e.nowNanos(), int64(time.Millisecond))
	rel := SharedRelease{Now: nowMs, AdmittedAt: a.admittedMs, Lease: a.lease, Cancel: cancel, Counters: make([]SharedCounter, 0, a.n), Along: along}
	if !cancel && a.tokCap {
		rel.Tokens = max(tokens, 0)
	}
	for i := 0; i < a.n; i++ {
		c := a.at(i)
		rel.Counters = append(rel.Counters, SharedCounter{ID: c.sid, Period: time.Duration(c.period)})
	}
	ctx, stop := context.WithTimeout(context.Background(), e.sharedTimeout)
	err := e.shared.Release(ctx, &rel)
	stop()
	if err != nil {
		// The lease expires by itself; the tokens are lost.
		e.sharedError(err)
	}
}

// resetShared empties the shared windows of rules; all says every rule's
// (rules is then ignored).
func (e *Engine) resetShared(rules []Key, all bool) error {
	if e.shared == nil || !all && len(rules) == 0 {
		return nil
	}
	if all {
		rules = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if err := e.shared.Reset(ctx, rules); err != nil {
		return fmt.Errorf("rate limits: reset shared counters: %w", err)
	}
	return nil
}

// resetSharedLogged is resetShared for counters of rules that are gone:
// a failure is only logged (the counters expire by themselves).
func (e *Engine) resetSharedLogged(rules []Key) {
	if err := e.resetShared(rules, false); err != nil {
		e.log.Warn("rate limits: could not clear the shared counters of removed rules; they expire by themselves", zap.Error(err))
	}
}

// sharedError handles a failed backend call: the backend is marked down
// (admissions count per process, or are refused when fail-closed) until
// the probe finds it answering again, at most probeEvery later. A hung
// server thus costs one timeout per process, not one per request; one
// slow answer from a healthy server costs about probeEvery of local
// counting.
func (e *Engine) sharedError(err error) {
	e.sharedFailed(err)
}

// sharedFailed marks the backend down after err and starts the probe that
// brings it back.
func (e *Engine) sharedFailed(err error) {
	if !e.sharedDown.CompareAndSwap(false, true) {
		return
	}
	mode := "counting admissions per process"
	if e.failClosed.Load() {
		mode = "refusing admissions (fail-closed)"
	}
	e.log.Warn("rate limits: the shared counter store does not answer; "+mode+" until it returns", zap.Error(err))
	e.warnedAt.Store(e.clock().UnixNano())
	go e.probe()
}

// probe pings the backend until it answers (then admissions use it again)
// or the Engine closes.
func (e *Engine) probe() {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			err := e.shared.Ping(ctx)
			cancel()
			if err == nil {
				e.sharedDown.Store(false)
				e.log.Info("rate limits: the shared counter store answers again; limits hold across processes again",
					zap.Uint64("fallback_admissions_total", e.fallbacks.Load()))
				return
			}
		}
	}
}

// warnFallback logs, at most every fallbackWarnEvery, how many admissions
// were decided without the backend.
func (e *Engine) warnFallback(err error) {
	now := e.clock().UnixNano()
	last := e.warnedAt.Load()
	if now-last < int64(fallbackWarnEvery) || !e.warnedAt.CompareAndSwap(last, now) {
		return
	}
	total := e.fallbacks.Load()
	since := total - e.warnedCount.Swap(total)
	e.log.Warn("rate limits: admissions decided without the shared counter store",
		zap.Uint64("since_last_warning", since), zap.Uint64("total", total),
		zap.Bool("fail_closed", e.failClosed.Load()), zap.Error(err))
}
