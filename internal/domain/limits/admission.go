package limits

import (
	"fmt"
	"strings"
	"time"
)

// admissionInline is how many counters an Admission holds without a heap
// allocation.
const admissionInline = 8

// Admission is an admitted request's hold on the counters of its matching
// rules. Call Done exactly once when the request has finished (more calls
// are ignored). The zero Admission (no matching rule) is valid. An Admission
// is not safe for concurrent use and must not be copied after Done is
// deferred on it.
type Admission struct {
	e    *Engine
	n    int
	cs   [admissionInline]*counter
	more []*counter
	h    Headers
	done bool
	// admittedAt and admittedGen (the engine's generation then) let
	// Cancel find the window that counted the request and skip counters
	// reset since.
	admittedAt  int64
	admittedGen uint64
	// shared says the Shared backend admitted the request: Done and
	// Cancel go to it. lease names its leases, tokCap says a matched rule
	// caps tokens (else tokens are not charged there), admittedMs is
	// admittedAt in the backend's milliseconds.
	shared     bool
	tokCap     bool
	lease      string
	admittedMs int64
}

// add records a counter the admission holds.
func (a *Admission) add(c *counter) {
	if a.n < admissionInline {
		a.cs[a.n] = c
	} else {
		a.more = append(a.more, c)
	}
	a.n++
}

// at returns the i-th held counter.
func (a *Admission) at(i int) *counter {
	if i < admissionInline {
		return a.cs[i]
	}
	return a.more[i-admissionInline]
}

// Done charges tokens (the request's total usage; 0 when unknown, on errors
// or disconnects) to the token windows of every matched rule and releases
// the in-flight slots. It is idempotent, never panics and is safe to call
// from a deferred function while a panic unwinds.
func (a *Admission) Done(tokens int64) { a.DoneAlong(tokens, nil) }

// DoneAlong is Done carrying along, another domain's call to the Shared
// backend, which the backend makes in the same round trip when the
// release asks it anything (along.Made then reports it did; see
// SharedRelease.Along). The caller makes the call itself when along.Made
// is false.
func (a *Admission) DoneAlong(tokens int64, along *Along) {
	if a == nil || a.done {
		return
	}
	a.done = true
	if a.n == 0 {
		return
	}
	if a.shared {
		a.releaseShared(tokens, false, along)
		return
	}
	var now int64
	if tokens > 0 {
		now = a.e.nowNanos()
	}
	for i := 0; i < a.n; i++ {
		c := a.at(i)
		if tokens > 0 && !c.gauge() {
			c.mu.Lock()
			if !c.dead {
				c.rotate(now)
				c.curTok = satAdd(c.curTok, tokens)
				c.lastUsed = now
				c.dirty = true
			}
			c.mu.Unlock()
		}
		c.release()
	}
}

// Cancel is Done for a request that was refused after this admission
// before it reached any provider (a saturated provider or model rule): it
// releases the slots like Done(0) and also gives the request back to each
// window that counted it, if that window is still current or previous and
// was not reset meanwhile. Idempotent; a Done or Cancel after it is
// ignored.
func (a *Admission) Cancel() {
	if a == nil || a.done {
		return
	}
	a.done = true
	if a.n == 0 {
		return
	}
	if a.shared {
		a.releaseShared(0, true, nil)
		return
	}
	now := a.e.nowNanos()
	for i := 0; i < a.n; i++ {
		c := a.at(i)
		if !c.gauge() {
			c.mu.Lock()
			if !c.dead && c.gen <= a.admittedGen {
				c.rotate(now)
				switch floorDiv(a.admittedAt, c.period) {
				case c.idx:
					c.curReq = max(0, c.curReq-1)
				case c.idx - 1:
					c.prevReq = max(0, c.prevReq-1)
				}
				c.dirty = true
			}
			c.mu.Unlock()
		}
		c.release()
	}
}

// Headers returns the x-ratelimit-* values computed at admission (after
// counting this request). Zero when no window rule matched.
func (a *Admission) Headers() Headers { return a.h }

// Rejection says why a request was refused.
type Rejection struct {
	// Rule is the key of the first exhausted rule in matching order (root
	// user path first; provider before model rules).
	Rule Key
	// RetryAfter is the time until a retry would really be admitted by
	// every exhausted rule under the sliding-window estimate, assuming no
	// other traffic: whole seconds, rounded up, at least one second. For a
	// full concurrency cap it is one second.
	RetryAfter time.Duration
	// Headers are the x-ratelimit-* values at the time of refusal.
	Headers Headers
	// Reason is a human-readable message naming the rule and the cap.
	Reason string
	// Unavailable says no rule was exhausted: the shared counter store
	// does not answer and the engine is fail-closed. Callers answer 503
	// rather than 429.
	Unavailable bool
}

// invalidPath is the refusal of a user path that is not acceptable. It
// cannot happen for requests that went through authentication, which
// refuses such paths with 400 first; the engine still refuses rather than
// charge the request to another subject.
func invalidPath(err error) *Rejection {
	return &Rejection{RetryAfter: time.Second, Reason: "rate limits: " + err.Error()}
}

// Error returns Reason, so a Rejection can travel as an error.
func (r *Rejection) Error() string { return r.Reason }

// RetryAfterSeconds is RetryAfter in whole seconds, for the Retry-After
// header.
func (r *Rejection) RetryAfterSeconds() int64 { return int64(r.RetryAfter / time.Second) }

// admit checks the counters of ms and, if none is exhausted, consumes one
// request on each and records them in a. Counters are locked in id order so
// concurrent admissions cannot deadlock, and all are checked before any is
// charged, so a rejection consumes nothing. retry is true when a matched
// partition was evicted meanwhile; the caller matches again.
func (e *Engine) admit(ms []match, a *Admission, along *Along) (rej *Rejection, retry bool) {
	if len(ms) == 0 {
		return nil, false
	}
	if rej, handled := e.admitVia(ms, a, along); handled {
		return rej, false
	}
	ms = sortByID(ms)
	for i := range ms {
		ms[i].c.mu.Lock()
	}
	for i := range ms {
		if ms[i].c.dead {
			unlockAll(ms)
			return nil, true
		}
	}
	now := e.nowNanos()
	a.admittedAt, a.admittedGen = now, e.gen.Load()
	tokens := e.tokensEnforced.Load()
	for i := range ms {
		m := &ms[i]
		c, r := m.c, &m.rs.rule
		if c.gauge() {
			if c.inFlightFull(r.MaxRequests) {
				m.full = true
				rej = e.reject(ms, now, tokens)
				unlockAll(ms)
				return rej, false
			}
			continue
		}
		c.rotate(now)
		m.reqUsed = c.reqWindow(now).used()
		m.tokUsed = c.tokWindow(now).used()
		if r.MaxRequests > 0 && m.reqUsed >= r.MaxRequests || tokens && r.MaxTokens > 0 && m.tokUsed >= r.MaxTokens {
			rej = e.reject(ms, now, tokens)
			unlockAll(ms)
			return rej, false
		}
	}
	for i := range ms {
		m := &ms[i]
		c, r := m.c, &m.rs.rule
		c.acquire()
		c.lastUsed = now
		a.add(c)
		if c.gauge() {
			a.h.addConcurrency(r.MaxRequests, c.inFlight.Load())
			continue
		}
		c.curReq++
		c.dirty = true
		if r.MaxRequests > 0 {
			// One more request raises the estimate by exactly one.
			a.h.offerRequests(r.MaxRequests, m.reqUsed+1, c, now)
		}
		if tokens && r.MaxTokens > 0 {
			a.h.offerTokens(r.MaxTokens, m.tokUsed, c, now)
		}
	}
	unlockAll(ms)
	return nil, false
}

// reject builds the Rejection for locked, rotated counters of which at least
// one is exhausted.
func (e *Engine) reject(ms []match, now int64, tokens bool) *Rejection {
	var (
		first *match
		what  string
		limit int64
		wait  int64
		h     Headers
	)
	for i := range ms {
		m := &ms[i]
		c, r := m.c, &m.rs.rule
		exhausted, dim, lim := false, "", int64(0)
		if c.gauge() {
			h.addConcurrency(r.MaxRequests, c.inFlight.Load())
			if m.full || c.inFlightFull(r.MaxRequests) {
				exhausted, dim, lim = true, "requests in flight", r.MaxRequests
				wait = max(wait, int64(time.Second))
			}
		} else {
			c.rotate(now)
			if r.MaxRequests > 0 {
				w := c.reqWindow(now)
				h.addRequests(r.MaxRequests, w)
				if w.used() >= r.MaxRequests {
					exhausted, dim, lim = true, "requests", r.MaxRequests
					wait = max(wait, w.wait(r.MaxRequests))
				}
			}
			if tokens && r.MaxTokens > 0 {
				w := c.tokWindow(now)
				h.addTokens(r.MaxTokens, w)
				if w.used() >= r.MaxTokens {
					if !exhausted {
						dim, lim = "tokens", r.MaxTokens
					}
					exhausted = true
					wait = max(wait, w.wait(r.MaxTokens))
				}
			}
		}
		if exhausted && (first == nil || m.pos < first.pos) {
			first, what, limit = m, dim, lim
		}
	}
	subject := first.rs.key.Subject
	if first.c.child != "" {
		subject = childPath(subject, first.c.child)
	}
	per := "per " + first.rs.key.PeriodLabel()
	if first.c.gauge() {
		per = "at once"
	}
	return &Rejection{
		Rule:       first.rs.key,
		RetryAfter: max(ceilSeconds(wait), time.Second),
		Headers:    h,
		Reason: fmt.Sprintf("rate limit exceeded: %s rule on %q allows %d %s %s",
			first.rs.key.Scope, subject, limit, countNoun(limit, what), per),
	}
}

// countNoun is the noun of a rejection reason for a limit of n: the
// plural as given, or its singular when n is 1 ("allows 1 request per
// minute", "allows 1 request in flight at once").
func countNoun(n int64, plural string) string {
	if n != 1 {
		return plural
	}
	noun, rest, _ := strings.Cut(plural, " ")
	noun = strings.TrimSuffix(noun, "s")
	if rest != "" {
		return noun + " " + rest
	}
	return noun
}

// sortByID sorts ms by counter id (insertion sort: ms is short) and drops
// duplicate counters, which would otherwise be locked twice.
func sortByID(ms []match) []match {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].c.id < ms[j-1].c.id; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	out := ms[:0]
	for i := range ms {
		if i > 0 && ms[i].c == ms[i-1].c {
			continue
		}
		out = append(out, ms[i])
	}
	return out
}

// unlockAll releases the mutexes taken by admit.
func unlockAll(ms []match) {
	for i := range ms {
		ms[i].c.mu.Unlock()
	}
}

// AdmitUserPath checks and charges the user-path rules covering userPath
// (normalized by userpath.Normalize; callers pass the path the request was
// authenticated with): rules on the path and its ancestors, and the child
// partition of templates on proper ancestors. On success the caller must
// call Done on the Admission when the request ends; on rejection nothing
// was consumed. A path with an empty or dot segment that
// userpath.Normalize refuses is rejected, never charged to another
// subject. The allowed path does not allocate once the
// child partitions exist.
func (e *Engine) AdmitUserPath(userPath string) (Admission, *Rejection) {
	return e.AdmitUserPathAlong(userPath, nil)
}

// AdmitUserPathAlong is AdmitUserPath carrying along, another domain's
// call to the Shared backend, which the backend makes in the same round
// trip when the admission asks it anything (along.Made then reports it
// did; see SharedAdmission.Along). Whatever the verdict, the caller makes
// the call itself when along.Made is false.
func (e *Engine) AdmitUserPathAlong(userPath string, along *Along) (Admission, *Rejection) {
	set := e.set.Load()
	if len(set.paths) == 0 {
		return Admission{}, nil
	}
	path, err := matchPath(userPath)
	if err != nil {
		return Admission{}, invalidPath(err)
	}
	for {
		var buf [matchBuf]match
		a := Admission{e: e}
		rej, retry := e.admit(set.matchPath(buf[:0], path), &a, along)
		if !retry {
			return a, rej
		}
	}
}

// AdmitTarget checks and charges the provider rules of provider (the
// resolved provider instance name) and the model rules of model on it
// ("provider/model" and bare "model" subjects), case-insensitively. Like
// AdmitUserPath, Done must be called when the attempt ends, with the tokens
// the provider actually used.
func (e *Engine) AdmitTarget(provider, model string) (Admission, *Rejection) {
	set := e.set.Load()
	if len(set.providers) == 0 && len(set.models) == 0 {
		return Admission{}, nil
	}
	var buf [matchBuf]match
	a := Admission{e: e}
	rej, _ := e.admit(set.matchTarget(buf[:0], provider, model), &a, nil)
	return a, rej
}

// TargetAvailable reports whether AdmitTarget would admit a request to
// provider and model now, without charging anything; when it would not,
// retryAfter is the time until it would (as Rejection.RetryAfter). Virtual
// models use it to skip saturated targets. With a Shared backend it asks
// nothing: windows are read as this process last saw them from the
// backend, and a concurrency rule the backend last found full counts as
// saturated for a second.
func (e *Engine) TargetAvailable(provider, model string) (retryAfter time.Duration, ok bool) {
	set := e.set.Load()
	if len(set.providers) == 0 && len(set.models) == 0 {
		return 0, true
	}
	var buf [matchBuf]match
	ms := set.matchTarget(buf[:0], provider, model)
	tokens := e.tokensEnforced.Load()
	now := e.nowNanos()
	var wait int64
	ok = true
	for i := range ms {
		c, r := ms[i].c, &ms[i].rs.rule
		c.mu.Lock()
		if c.gauge() {
			if c.inFlightFull(r.MaxRequests) || c.busyUntil.Load() > now {
				ok, wait = false, max(wait, int64(time.Second))
			}
		} else {
			req, tok := c.peek(now)
			if r.MaxRequests > 0 && req.used() >= r.MaxRequests {
				ok, wait = false, max(wait, req.wait(r.MaxRequests))
			}
			if tokens && r.MaxTokens > 0 && tok.used() >= r.MaxTokens {
				ok, wait = false, max(wait, tok.wait(r.MaxTokens))
			}
		}
		c.mu.Unlock()
	}
	if ok {
		return 0, true
	}
	return max(ceilSeconds(wait), time.Second), false
}

// AdmitBatch checks and charges the user-path rules of userPath for a batch
// submission: it counts as one request, takes no concurrency slot
// (concurrent rules do not apply) and needs no Done; provider and model
// rules do not apply to batches. Like AdmitUserPath it rejects a path that
// userpath.Normalize refuses.
func (e *Engine) AdmitBatch(userPath string) (Headers, *Rejection) {
	set := e.set.Load()
	if len(set.paths) == 0 {
		return Headers{}, nil
	}
	path, err := matchPath(userPath)
	if err != nil {
		return Headers{}, invalidPath(err)
	}
	for {
		var buf [matchBuf]match
		ms := set.matchPath(buf[:0], path)
		windows := ms[:0]
		for _, m := range ms {
			if !m.c.gauge() {
				windows = append(windows, m)
			}
		}
		a := Admission{e: e}
		rej, retry := e.admit(windows, &a, nil)
		if retry {
			continue
		}
		a.Done(0) // releases partition holds
		return a.h, rej
	}
}
