package limits

import "time"

// Usage is the live state of one rule's counter.
type Usage struct {
	// RequestsUsed is the sliding-window request estimate (rounded up).
	RequestsUsed int64
	// TokensUsed is the sliding-window token estimate (rounded up).
	TokensUsed int64
	// InFlight is the number of admitted requests not finished yet, for
	// concurrent rules and template children; 0 for other window rules.
	InFlight int64
	// WindowStart and WindowEnd bound the current fixed window; zero for
	// concurrent rules.
	WindowStart, WindowEnd time.Time
}

// RuleStatus is a rule with its live usage, for the admin list and
// GET /v1/usage.
type RuleStatus struct {
	// Rule is the rule as configured.
	Rule Rule
	// Key is the rule's identity.
	Key Key
	// Template is true for per_child rules.
	Template bool
	// EffectiveSubject is the subject the usage belongs to: the child path
	// ("/customers/alice") for a template in StatusFor, else Rule.Subject.
	EffectiveSubject string
	// Usage is the live usage; zero for a template in Rules (templates have
	// no aggregate counter).
	Usage Usage
	// Children is, for a template in Rules, how many children have usage
	// (see Engine.Children).
	Children int
	// ChildrenExhausted is, for a template in Rules, how many of those
	// children are exhausted.
	ChildrenExhausted int
}

// Rules lists every live rule with its usage (with a Shared backend that
// answers, read from it in one call), user-path rules first, then
// provider and model rules, each sorted by subject and window length.
func (e *Engine) Rules() []RuleStatus {
	set := e.set.Load()
	now := e.nowNanos()
	out := make([]RuleStatus, 0, len(set.list))
	ids := make([]string, 0, len(set.list))
	for _, rs := range set.list {
		st := RuleStatus{Rule: rs.rule, Key: rs.key, Template: rs.rule.PerChild, EffectiveSubject: rs.key.Subject}
		id := ""
		if rs.g.agg != nil {
			st.Usage = rs.g.agg.usage(now)
			id = rs.g.agg.sid
		} else {
			st.Children, st.ChildrenExhausted = e.childCounts(rs)
		}
		out = append(out, st)
		ids = append(ids, id)
	}
	e.sharedUsage(out, ids)
	return out
}

// StatusFor lists the user-path rules covering userPath (from the root
// down) with the caller's usage: for a template on an ancestor, the counters
// of the caller's child partition. It creates no partition and charges
// nothing; a path that userpath.Normalize refuses has no rules. With a
// Shared backend that answers, the usage is read from it in one call.
func (e *Engine) StatusFor(userPath string) []RuleStatus {
	set := e.set.Load()
	if len(set.paths) == 0 {
		return nil
	}
	path, err := matchPath(userPath)
	if err != nil {
		return nil
	}
	now := e.nowNanos()
	var out []RuleStatus
	var ids []string
	add := func(anc string) {
		for _, rs := range set.paths[anc] {
			st := RuleStatus{Rule: rs.rule, Key: rs.key, Template: rs.rule.PerChild, EffectiveSubject: rs.key.Subject}
			var id string
			if rs.g.tmpl == nil {
				st.Usage = rs.g.agg.usage(now)
				id = rs.g.agg.sid
			} else {
				child, ok := childOf(anc, path)
				if !ok {
					continue
				}
				st.EffectiveSubject = childPath(anc, child)
				if c := rs.g.tmpl.lookup(child); c != nil {
					st.Usage = c.usage(now)
				} else {
					st.Usage = emptyUsage(rs.g.period, now)
				}
				id = sharedCounterID(rs.g.tmpl.sid, child)
			}
			out = append(out, st)
			ids = append(ids, id)
		}
	}
	add("/")
	for i := 2; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			add(path[:i])
		}
	}
	e.sharedUsage(out, ids)
	return out
}

// usage reads c's live usage at now.
func (c *counter) usage(now int64) Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := emptyUsage(time.Duration(c.period), now)
	u.InFlight = c.inFlight.Load()
	if !c.gauge() {
		req, tok := c.peek(now)
		u.RequestsUsed, u.TokensUsed = req.used(), tok.used()
	}
	return u
}

// emptyUsage is the usage of an untouched counter: just the current window.
func emptyUsage(period time.Duration, now int64) Usage {
	if period <= 0 {
		return Usage{}
	}
	start := floorDiv(now, int64(period)) * int64(period)
	return Usage{WindowStart: time.Unix(0, start).UTC(), WindowEnd: time.Unix(0, start+int64(period)).UTC()}
}
