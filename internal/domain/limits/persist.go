package limits

// Persistence.
//
// Manual rules go to the RuleStore, written synchronously by the admin
// operations. Counter snapshots go to the CounterStore: one record per
// window counter (a rule's own counter or one child partition), queued by
// the periodic flush without blocking (the snapshot goroutine never waits
// for disk), and only counters changed since the previous snapshot are
// written. Concurrency gauges are never persisted.
//
// Resets must never be undone by a snapshot that raced them (read before
// the reset, committed after it). Every counter carries a generation, a
// number from one engine-wide increasing sequence, and every record stores
// the generation of the data it holds. A reset (reset-one, delete, key
// change, reset-all) takes a fresh generation G, first commits a marker
// "records of this rule older than G are void" (for reset-all one global
// floor) synchronously, then clears the counters in memory and stamps them
// with G. A snapshot reads data and generation together under the counter's
// mutex, so a record taken before the clear carries an older generation and
// is ignored (and deleted) when counters are loaded, whatever order the
// writes reach the store in; a record taken after it holds only post-reset
// data. Markers only ever rise. At load the sequence resumes above every
// generation found in the store, so new rules and resets outrank everything
// stored.

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// finalFlushTimeout bounds how long Close waits for the store.
const finalFlushTimeout = 10 * time.Second

// snapshot reads c's state. Caller holds c.mu.
func (c *counter) snapshot() Snapshot {
	return Snapshot{Gen: c.gen, Window: c.idx, Requests: c.curReq, PrevRequests: c.prevReq, Tokens: c.curTok, PrevTokens: c.prevTok}
}

// restore loads s into c.
func (c *counter) restore(s Snapshot) {
	c.gen, c.idx = s.Gen, s.Window
	c.curReq, c.prevReq, c.curTok, c.prevTok = s.Requests, s.PrevRequests, s.Tokens, s.PrevTokens
}

// pendingGroup holds loaded counters of one rule key until a live rule
// claims them.
type pendingGroup struct {
	agg   *Snapshot
	parts map[string]Snapshot
}

// attach loads p into a new group. Records of the other shape (per_child
// switched while stopped) are ignored.
func (p *pendingGroup) attach(g *group) {
	if g.agg != nil && p.agg != nil {
		g.agg.restore(*p.agg)
	}
	if g.tmpl != nil {
		for child, s := range p.parts {
			c := newCounter(g.period, child, s.Gen)
			c.sid = sharedCounterID(g.tmpl.sid, child)
			c.restore(s)
			g.tmpl.parts[child] = c
		}
	}
}

// persistRule stores put and deletes del (either may be nil) in one step.
func (e *Engine) persistRule(put *Rule, del *Key) error {
	if e.rules == nil {
		return nil
	}
	if err := e.rules.ReplaceRule(put, del); err != nil {
		return fmt.Errorf("rate limits: persist rule: %w", err)
	}
	return nil
}

// markReset commits reset markers of generation gen for rules and deletes
// their records (records still queued are voided by the marker).
func (e *Engine) markReset(rules []Key, gen uint64) error {
	if e.counters == nil {
		return nil
	}
	if err := e.counters.MarkReset(rules, gen); err != nil {
		return fmt.Errorf("rate limits: persist reset: %w", err)
	}
	return nil
}

// markResetAll commits the reset-all floor gen and deletes every record.
func (e *Engine) markResetAll(gen uint64) error {
	if e.counters == nil {
		return nil
	}
	if err := e.counters.MarkResetAll(gen); err != nil {
		return fmt.Errorf("rate limits: persist reset: %w", err)
	}
	return nil
}

// readRules reads the manual rules from the RuleStore, skipping (with a
// warning) records that cannot be read or are not valid.
func (e *Engine) readRules() (map[Key]Rule, error) {
	rules, skipped, err := e.rules.LoadRules()
	if err != nil {
		return nil, fmt.Errorf("rate limits: load rules: %w", err)
	}
	for _, err := range skipped {
		e.log.Warn("rate limits: skipping unreadable stored rule", zap.Error(err))
	}
	manual := make(map[Key]Rule, len(rules))
	for _, r := range rules {
		r.Source = SourceManual
		r = r.normalized()
		if err := r.Validate(true); err != nil {
			e.log.Warn("rate limits: skipping invalid stored rule", zap.Stringer("rule", r.Key()), zap.Error(err))
			continue
		}
		if r.PerChild && !e.entitled.Load() {
			e.log.Warn("rate limits: stored per_child rule kept although the quota_templates entitlement is off; delete it or restore the entitlement",
				zap.Stringer("rule", r.Key()))
		}
		manual[r.Key()] = r
	}
	return manual, nil
}

// load reads manual rules and counter snapshots. Valid snapshots of windows
// still relevant now go to e.pending; void and expired records are deleted.
func (e *Engine) load() error {
	if e.rules != nil {
		manual, err := e.readRules()
		if err != nil {
			return err
		}
		e.manual = manual
	}
	if e.counters == nil {
		return nil
	}
	sc, err := e.counters.LoadCounters()
	if err != nil {
		return fmt.Errorf("rate limits: load counters: %w", err)
	}
	maxGen := sc.Floor
	for _, m := range sc.Markers {
		maxGen = max(maxGen, m)
	}
	now := e.nowNanos()
	var stale []CounterID
	for _, r := range sc.Records {
		maxGen = max(maxGen, r.Gen)
		period := r.Rule.Duration()
		if period <= 0 || r.Rule.Period == PeriodConcurrent {
			stale = append(stale, r.CounterID) // not a window counter
			continue
		}
		nowIdx := floorDiv(now, int64(period))
		if r.Gen < max(sc.Floor, sc.Markers[r.Rule]) || r.Window < nowIdx-1 {
			stale = append(stale, r.CounterID) // voided by a reset, or fully decayed
			continue
		}
		p := e.pending[r.Rule]
		if p == nil {
			p = &pendingGroup{parts: map[string]Snapshot{}}
			e.pending[r.Rule] = p
		}
		if r.Child == "" {
			s := r.Snapshot
			p.agg = &s
		} else {
			p.parts[r.Child] = r.Snapshot
		}
	}
	e.gen.Store(maxGen)
	if len(stale) > 0 {
		if err := e.counters.DeleteCounters(stale); err != nil {
			e.log.Warn("rate limits: could not delete stale counter records", zap.Error(err))
		}
	}
	return nil
}

// flush snapshots every counter changed since the last snapshot into the
// store's queue. final (Close) retries once after draining the queue when
// it is full, then waits until the store has committed everything.
func (e *Engine) flush(final bool) error {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), finalFlushTimeout)
	defer cancel()
	var buf []*counter
	for _, rs := range e.set.Load().list {
		g := rs.g
		if g.period <= 0 {
			continue
		}
		if g.agg != nil {
			e.flushCounter(ctx, g, g.agg, final)
			continue
		}
		buf = g.tmpl.list(buf[:0])
		for _, c := range buf {
			e.flushCounter(ctx, g, c, final)
		}
	}
	if !final {
		return nil
	}
	if err := e.counters.Flush(ctx); err != nil {
		return fmt.Errorf("rate limits: final counter snapshot: %w", err)
	}
	return nil
}

// flushCounter queues c's snapshot if it changed. When the queue is full
// the counter stays dirty for the next snapshot (unless a reset got there
// first).
func (e *Engine) flushCounter(ctx context.Context, g *group, c *counter, final bool) {
	c.mu.Lock()
	if !c.dirty || c.dead {
		c.mu.Unlock()
		return
	}
	s := c.snapshot()
	c.dirty = false
	c.mu.Unlock()
	rec := CounterRecord{CounterID: CounterID{Rule: g.key, Child: c.child}, Snapshot: s}
	if e.counters.QueueSnapshot(rec) {
		return
	}
	if final && e.counters.Flush(ctx) == nil && e.counters.QueueSnapshot(rec) {
		return
	}
	c.mu.Lock()
	if c.gen == s.Gen && !c.dead {
		c.dirty = true
	}
	c.mu.Unlock()
}
