package limits

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// ErrNotTemplate is returned when an operation on the children of a
// template names a rule that is not per_child (HTTP 400).
var ErrNotTemplate = errors.New("rate-limit rule is not a per_child template")

// MaxSharedChildren bounds the child counters a listing reads from a
// Shared backend per template, beyond those this process holds.
const MaxSharedChildren = 10000

// sharedPeekBatch is how many counters one Peek of a listing reads.
const sharedPeekBatch = 500

// childNamesTTL is how long the child names a Shared backend listed for a
// template are reused: the dashboard refreshes the rule list every few
// seconds, and each listing would otherwise scan the backend's keys again.
// Counts are always read afresh; only a child that another process alone
// has seen may show up that much later.
const childNamesTTL = 10 * time.Second

// childNames caches, per template, the child names a Shared backend
// listed (see childNamesTTL).
type childNames struct {
	mu sync.Mutex
	m  map[string]childNamesEntry // by the template's shared id
}

// childNamesEntry is one template's cached names.
type childNamesEntry struct {
	at    time.Time
	names []string
}

// sharedChildNames returns the child names the Shared backend holds for
// template rs, from the cache while it is fresh.
func (e *Engine) sharedChildNames(sc SharedChildren, rs *ruleState) []string {
	sid := rs.g.tmpl.sid
	now := time.Now()
	e.kidNames.mu.Lock()
	if c, ok := e.kidNames.m[sid]; ok && now.Sub(c.at) < childNamesTTL {
		e.kidNames.mu.Unlock()
		return c.names
	}
	e.kidNames.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), max(e.sharedTimeout, time.Second))
	names, err := sc.ChildCounters(ctx, sid, rs.g.period == 0, MaxSharedChildren)
	cancel()
	if err != nil {
		e.log.Warn("rate limits: could not list the shared counters of a template's children; showing this process's",
			zap.Stringer("rule", rs.key), zap.Error(err))
		return names
	}
	e.kidNames.mu.Lock()
	if e.kidNames.m == nil {
		e.kidNames.m = map[string]childNamesEntry{}
	}
	for k, c := range e.kidNames.m {
		if now.Sub(c.at) >= childNamesTTL {
			delete(e.kidNames.m, k)
		}
	}
	e.kidNames.m[sid] = childNamesEntry{at: now, names: names}
	e.kidNames.mu.Unlock()
	return names
}

// SharedChildren is what a Shared backend may also implement, so that the
// children of a template can be listed and reset one by one across
// processes.
type SharedChildren interface {
	// ChildCounters returns the child segments of the template whose
	// counters are named ruleID:<child> (see Key.SharedID) that the
	// backend holds: window counters, or with concurrent the lease sets
	// of a concurrent template. It returns at most limit segments and
	// does bounded work (no full listing of the keyspace in one call).
	ChildCounters(ctx context.Context, ruleID string, concurrent bool, limit int) ([]string, error)
	// ResetChild empties the request and token windows of one child of
	// template rule; its leases are kept.
	ResetChild(ctx context.Context, rule Key, child string) error
}

// ChildStatus is the live usage of one child of a per_child template.
type ChildStatus struct {
	// UserPath is the child's path ("/customers/alice").
	UserPath string
	// Usage is the child's usage; WindowStart and WindowEnd as for a
	// rule's own counter.
	Usage Usage
	// Exhausted reports that the child's next request would be refused by
	// this template: a request or token window used up (token caps only
	// when enforced), or every in-flight slot of a concurrent template
	// taken.
	Exhausted bool
}

// Children returns the children of template k with usage (requests or
// tokens in the sliding window, or requests in flight): most used first
// (requests, then tokens, then in flight), then by path. With a Shared
// backend that answers, the children of every process are read from it
// (see SharedChildren; up to MaxSharedChildren besides this process's).
// It fails with ErrRuleNotFound for an unknown key and ErrNotTemplate for
// a rule that is not per_child.
func (e *Engine) Children(k Key) ([]ChildStatus, error) {
	k = k.Normalize()
	rs := e.set.Load().byKey[k]
	if rs == nil {
		return nil, fmt.Errorf("%w: %s", ErrRuleNotFound, k)
	}
	if rs.g.tmpl == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotTemplate, k)
	}
	out := e.childStatuses(rs)
	slices.SortFunc(out, func(a, b ChildStatus) int {
		if c := cmp.Compare(b.Usage.RequestsUsed, a.Usage.RequestsUsed); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Usage.TokensUsed, a.Usage.TokensUsed); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Usage.InFlight, a.Usage.InFlight); c != 0 {
			return c
		}
		return cmp.Compare(a.UserPath, b.UserPath)
	})
	return out, nil
}

// childStatuses lists the children of template rs with usage, unsorted.
func (e *Engine) childStatuses(rs *ruleState) []ChildStatus {
	now := e.nowNanos()
	parts := rs.g.tmpl.list(nil)
	names := make([]string, 0, len(parts))
	sts := make([]RuleStatus, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for _, c := range parts {
		names = append(names, c.child)
		sts = append(sts, RuleStatus{Key: rs.key, Usage: c.usage(now)})
		seen[c.child] = true
	}
	if sc, ok := e.shared.(SharedChildren); ok && e.SharedHealthy() {
		for _, child := range e.sharedChildNames(sc, rs) {
			if !seen[child] {
				seen[child] = true
				names = append(names, child)
				sts = append(sts, RuleStatus{Key: rs.key, Usage: emptyUsage(rs.g.period, now)})
			}
		}
	}
	if e.SharedHealthy() {
		for i := 0; i < len(sts); i += sharedPeekBatch {
			j := min(i+sharedPeekBatch, len(sts))
			ids := make([]string, j-i)
			for n := range ids {
				ids[n] = sharedCounterID(rs.g.tmpl.sid, names[i+n])
			}
			e.sharedUsage(sts[i:j], ids)
		}
	}
	r := rs.rule
	tokens := e.tokensEnforced.Load()
	out := make([]ChildStatus, 0, len(sts))
	for i, st := range sts {
		u := st.Usage
		if u.RequestsUsed == 0 && u.TokensUsed == 0 && u.InFlight == 0 {
			continue
		}
		var full bool
		if rs.g.period == 0 {
			full = r.MaxRequests > 0 && u.InFlight >= r.MaxRequests
		} else {
			full = r.MaxRequests > 0 && u.RequestsUsed >= r.MaxRequests || tokens && r.MaxTokens > 0 && u.TokensUsed >= r.MaxTokens
		}
		out = append(out, ChildStatus{UserPath: childPath(rs.key.Subject, names[i]), Usage: u, Exhausted: full})
	}
	return out
}

// childCounts is how many children of template rs have usage and how
// many of them are exhausted.
func (e *Engine) childCounts(rs *ruleState) (used, exhausted int) {
	for _, c := range e.childStatuses(rs) {
		used++
		if c.Exhausted {
			exhausted++
		}
	}
	return used, exhausted
}

// templateOf returns the group of the per_child template k.Subject is a
// direct child of (same scope and period), and the child's segment; nil
// when there is none. Caller holds mu.
func (e *Engine) templateOf(k Key) (*group, string) {
	if k.Scope != ScopeUserPath || k.Subject == "/" || !strings.HasPrefix(k.Subject, "/") {
		return nil, ""
	}
	pk := Key{Scope: k.Scope, Subject: path.Dir(k.Subject), Period: k.Period, PeriodSeconds: k.PeriodSeconds}.Normalize()
	g := e.groups[pk]
	if g == nil || g.tmpl == nil {
		return nil, ""
	}
	child, ok := childOf(pk.Subject, k.Subject)
	if !ok {
		return nil, ""
	}
	return g, child
}

// resetChild clears the request and token windows of one child of
// template g, in memory, in the CounterStore (its snapshot is deleted,
// after the snapshots queued before it landed) and in the Shared backend.
// Its in-flight requests keep their slots. Caller holds mu.
func (e *Engine) resetChild(g *group, child string) error {
	gen := e.newGen()
	var err error
	e.flushMu.Lock()
	if c := g.tmpl.lookup(child); c != nil {
		c.mu.Lock()
		c.clear(gen)
		c.mu.Unlock()
	}
	if e.counters != nil && g.period > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), finalFlushTimeout)
		if ferr := e.counters.Flush(ctx); ferr != nil {
			err = fmt.Errorf("rate limits: persist reset: %w", ferr)
		}
		cancel()
		if derr := e.counters.DeleteCounters([]CounterID{{Rule: g.key, Child: child}}); derr != nil && err == nil {
			err = fmt.Errorf("rate limits: persist reset: %w", derr)
		}
	}
	e.flushMu.Unlock()
	if e.shared != nil && g.period > 0 {
		sc, ok := e.shared.(SharedChildren)
		if !ok {
			if err == nil {
				err = errors.New("rate limits: the shared counter store cannot reset one child of a template")
			}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), max(e.sharedTimeout, time.Second))
			serr := sc.ResetChild(ctx, g.key, child)
			cancel()
			if serr != nil && err == nil {
				err = fmt.Errorf("rate limits: resetting the shared counters: %w", serr)
			}
		}
	}
	return err
}

// clearChild clears one child's windows in memory only, as another
// process reset it (ApplyChange). Caller holds mu.
func (e *Engine) clearChild(id CounterID, gen uint64) {
	g := e.groups[id.Rule.Normalize()]
	if g == nil || g.tmpl == nil {
		return
	}
	if c := g.tmpl.lookup(id.Child); c != nil {
		c.mu.Lock()
		c.clear(gen)
		c.mu.Unlock()
	}
}

// Rule returns the live rule of k (config shadowing manual), and whether
// there is one.
func (e *Engine) Rule(k Key) (Rule, bool) {
	rs := e.set.Load().byKey[k.Normalize()]
	if rs == nil {
		return Rule{}, false
	}
	return rs.rule, true
}
