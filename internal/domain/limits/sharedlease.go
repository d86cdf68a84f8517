package limits

// Requests counted ahead.
//
// A shared admission is one round trip to the backend. Far below a cap,
// that round trip decides nothing: the answer is yes for a long while yet.
// So when a process admits often on a window counter whose use is under
// half its cap, it asks the backend to count a small batch of requests at
// once (SharedAdmission.Batch) and admits the rest of the batch locally,
// without asking again, until the batch is used up or its window ends.
//
// What holds:
//   - The cap is never exceeded: every request admitted locally was counted
//     in the backend before it was admitted, in the window it is admitted
//     in.
//   - The backend grants a batch only while the window's use, the batch
//     included, stays at or under half the cap; from there on every
//     admission is asked one by one, as without batches.
//   - A batch is at most leaseMax requests, at most 1/leaseShare of the cap
//     (so caps under 2 × leaseShare never batch), and at most as many as
//     this process tried to admit on the counter in the current or the
//     previous rateSlot: a process that admits rarely never counts ahead.
//   - A batch is used only in the window and under the cap it was granted
//     in, and is dropped when its counter is reset. What it has left goes
//     back (SharedCounter.GiveBack) with the next call that asks for a new
//     batch, or after its window or cap changed, so a process holds at
//     most one batch per counter that is counted but not admitted. A
//     process that stops receiving requests keeps it counted until the
//     window passes, so a refusal can come early by at most one batch per
//     process and counter.
//   - Counters with token caps in force, concurrency counters, and
//     admissions that carry another domain's call (Along) are always
//     asked one by one.

import "time"

const (
	// leaseMax is the most requests one batch counts ahead.
	leaseMax = 64
	// leaseShare bounds a batch to 1/leaseShare of the counter's cap.
	leaseShare = 1000
	// rateSlot is the span over which a counter's admissions by this
	// process are counted to size its next batch.
	rateSlot = int64(100 * time.Millisecond)
)

// counterLease is what a window counter holds of requests counted ahead.
// Guarded by the counter's mu.
type counterLease struct {
	// win is the backend window index the batch was counted in; left is
	// how many of it are not admitted yet; limit is the request cap it
	// was granted under.
	win, left, limit int64
	// backWin and back are a remainder to give back with the next call.
	backWin, back int64
	// fetching says a backend call that asks for a batch is in flight:
	// other admissions meanwhile ask one by one, so that concurrent
	// requests do not each count a batch ahead. fetchGen is the counter's
	// generation when it was asked: a batch granted across a reset of
	// the counter is not kept.
	fetching bool
	fetchGen uint64
	// slot is the current rateSlot index; cur and prev are this
	// process's admission attempts on the counter in that slot and the
	// one before.
	slot, cur, prev int64
}

// note counts one admission attempt at now (unix nanos) for sizing
// batches.
func (l *counterLease) note(now int64) {
	s := now / rateSlot
	switch {
	case s == l.slot:
	case s == l.slot+1:
		l.slot, l.prev, l.cur = s, l.cur, 0
	default:
		l.slot, l.prev, l.cur = s, 0, 0
	}
	l.cur++
}

// want is the batch to ask for under a cap of maxRequests: at most
// leaseMax, 1/leaseShare of the cap and the recent attempts.
func (l *counterLease) want(maxRequests int64) int64 {
	return min(leaseMax, maxRequests/leaseShare, max(l.cur, l.prev))
}

// giveBack moves what the batch has left to the remainder given back
// with the next call.
func (l *counterLease) giveBack() {
	if l.left > 0 {
		l.backWin, l.back, l.left = l.win, l.left, 0
	}
}

// usable reports whether the batch has requests left for window win under
// cap limit; a batch of another window or cap is given back, and so is
// one of a counter that may no longer count ahead (ok false).
func (l *counterLease) usable(win, limit int64, ok bool) bool {
	if !ok || l.win != win || l.limit != limit {
		l.giveBack()
	}
	return l.left > 0
}

// install records a batch of granted requests counted in win under cap
// limit, one of which the current admission takes.
func (l *counterLease) install(win, granted, limit int64) {
	if l.win != win || l.limit != limit {
		l.giveBack()
		l.win, l.limit = win, limit
	}
	l.left += granted - 1
}

// batchable reports whether the counter of m may count requests ahead.
// Caller holds m.c.mu.
func batchable(m *match, tokens bool) bool {
	r := &m.rs.rule
	return !m.c.gauge() && !m.c.dead && r.MaxRequests >= 2*leaseShare && !(tokens && r.MaxTokens > 0)
}

// backendWindow is the backend's index of the window containing nowMs
// (Unix milliseconds) for counter c.
func backendWindow(c *counter, nowMs int64) int64 {
	return floorDiv(nowMs, c.period/int64(time.Millisecond))
}

// admitLeased admits the request from the batches its counters hold,
// without asking the backend, when every one of ms (sorted) holds a batch
// of the current window and cap. It reports whether it did; a is filled in
// as a shared admission would be.
func (e *Engine) admitLeased(ms []match, a *Admission, tokens bool) bool {
	nowMs := floorDiv(e.nowNanos(), int64(time.Millisecond))
	now := nowMs * int64(time.Millisecond)
	for i := range ms {
		ms[i].c.mu.Lock()
	}
	for i := range ms {
		c := ms[i].c
		if c.gauge() || !c.lease.usable(backendWindow(c, nowMs), ms[i].rs.rule.MaxRequests, batchable(&ms[i], tokens)) {
			unlockAll(ms)
			return false
		}
	}
	for i := range ms {
		c, r := ms[i].c, &ms[i].rs.rule
		c.lease.left--
		c.lease.note(now)
		c.rotate(now)
		c.curReq++
		a.add(c)
		if r.MaxTokens > 0 {
			a.tokCap = true
		}
		a.h.offerRequests(r.MaxRequests, c.reqWindow(now).used(), c, now)
	}
	unlockAll(ms)
	a.shared = true
	a.admittedAt, a.admittedMs = now, nowMs
	return true
}

// prepareBatch fills in req's give-backs for the counters of ms and, when
// every counter may count ahead and none is fetching already, the batch to
// ask for, marking them fetching and giving back what their batches have
// left (so that none holds more than the new batch). It reports whether a
// batch was asked.
func prepareBatch(ms []match, req *SharedAdmission, now int64) bool {
	batch := int64(leaseMax)
	if req.Along != nil {
		batch = 0
	}
	marked := 0
	for i := range ms {
		c, sc := ms[i].c, &req.Counters[i]
		if c.gauge() {
			batch = 0
			continue
		}
		c.mu.Lock()
		c.lease.note(now)
		sc.GiveBackWindow, sc.GiveBack = c.lease.backWin, c.lease.back
		c.lease.back = 0
		if batch >= 2 && batchable(&ms[i], req.Tokens) && !c.lease.fetching {
			batch = min(batch, c.lease.want(ms[i].rs.rule.MaxRequests))
		} else {
			batch = 0
		}
		if batch >= 2 {
			c.lease.fetching, c.lease.fetchGen = true, c.gen
			marked = i + 1
		}
		c.mu.Unlock()
	}
	if batch < 2 {
		for i := 0; i < marked; i++ {
			c := ms[i].c
			c.mu.Lock()
			c.lease.fetching = false
			c.mu.Unlock()
		}
		return false
	}
	for i := range ms {
		c, sc := ms[i].c, &req.Counters[i]
		c.mu.Lock()
		if c.lease.left > 0 {
			// The window's own remainder goes back in place of an older
			// window's (which then stays counted, the safe side).
			sc.GiveBackWindow, sc.GiveBack = c.lease.win, c.lease.left
			c.lease.left = 0
		}
		c.mu.Unlock()
	}
	req.Batch = batch
	return true
}

// finishBatch ends a batch request made by prepareBatch: when req was
// admitted with more than one request granted, each counter not reset
// meanwhile keeps the rest, and its view shows only what was admitted so
// far.
func finishBatch(ms []match, req *SharedAdmission, asked bool) {
	if !asked {
		return
	}
	granted := req.Granted
	if !req.Admitted {
		granted = 0
	}
	for i := range ms {
		c, sc := ms[i].c, &req.Counters[i]
		c.mu.Lock()
		c.lease.fetching = false
		if granted > 1 && c.gen == c.lease.fetchGen {
			c.lease.install(sc.Window, granted, ms[i].rs.rule.MaxRequests)
			sc.Requests -= granted - 1
		}
		c.mu.Unlock()
	}
}
