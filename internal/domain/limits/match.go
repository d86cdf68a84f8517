package limits

import (
	"cmp"
	"slices"
	"time"
)

// group is the live state of one rule key: its counter, or the partitions
// of a per_child template. Groups outlive rule-set snapshots, so editing
// only the caps of a rule keeps its counters.
type group struct {
	key      Key
	period   time.Duration // window length; 0 for concurrent rules
	perChild bool
	agg      *counter  // the rule's counter; nil for templates
	tmpl     *template // partitions of a template; nil otherwise
}

// clear empties the group's windows and stamps gen.
func (g *group) clear(gen uint64) {
	if g.tmpl != nil {
		g.tmpl.clear(gen)
		return
	}
	g.agg.mu.Lock()
	g.agg.clear(gen)
	g.agg.mu.Unlock()
}

// ruleState is one live rule of a snapshot: the rule (with its current caps)
// and the group holding its counters.
type ruleState struct {
	rule Rule
	key  Key
	g    *group
}

// ruleSet is an immutable snapshot of the live rules, indexed for matching.
// Admin operations build a new one and swap it in atomically.
type ruleSet struct {
	paths map[string][]*ruleState // user-path rules by subject
	// pathLens has bit n set when some user-path subject is n bytes long
	// (n < 256; longer subjects set bit 0): ancestors of other lengths
	// are not looked up.
	pathLens  [4]uint64
	providers map[string][]*ruleState // provider rules by lower-cased name
	models    map[string][]*ruleState // model rules by lower-cased subject
	list      []*ruleState            // every rule, in display order
	byKey     map[Key]*ruleState
}

// emptySet is the snapshot before any rule exists.
var emptySet = &ruleSet{}

// newRuleSet indexes states.
func newRuleSet(states []*ruleState) *ruleSet {
	s := &ruleSet{
		paths:     map[string][]*ruleState{},
		providers: map[string][]*ruleState{},
		models:    map[string][]*ruleState{},
		byKey:     make(map[Key]*ruleState, len(states)),
		list:      slices.Clone(states),
	}
	slices.SortFunc(s.list, compareStates)
	for _, rs := range s.list {
		s.byKey[rs.key] = rs
		switch rs.key.Scope {
		case ScopeUserPath:
			s.paths[rs.key.Subject] = append(s.paths[rs.key.Subject], rs)
			n := len(rs.key.Subject)
			if n >= 256 {
				n = 0
			}
			s.pathLens[n/64] |= 1 << (n % 64)
		case ScopeProvider:
			s.providers[rs.key.Subject] = append(s.providers[rs.key.Subject], rs)
		case ScopeModel:
			s.models[rs.key.Subject] = append(s.models[rs.key.Subject], rs)
		}
	}
	return s
}

// scopeOrder sorts user-path rules first, then provider, then model rules.
func scopeOrder(s Scope) int {
	switch s {
	case ScopeUserPath:
		return 0
	case ScopeProvider:
		return 1
	}
	return 2
}

// compareStates is the display order: scope, subject, window length
// (concurrent last).
func compareStates(a, b *ruleState) int {
	if c := cmp.Compare(scopeOrder(a.key.Scope), scopeOrder(b.key.Scope)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key.Subject, b.key.Subject); c != 0 {
		return c
	}
	da, db := a.key.Duration(), b.key.Duration()
	if da == 0 {
		da = 1 << 62
	}
	if db == 0 {
		db = 1 << 62
	}
	return cmp.Compare(da, db)
}

// match is one matching rule of a request and the counter it charges.
type match struct {
	rs  *ruleState
	c   *counter
	pos int // position in matching order, for "first exhausted rule"
	// full records that admit found this gauge at its cap: Done lowers
	// gauges without the lock, so reject must not re-read it.
	full bool
	// reqUsed and tokUsed are the window estimates read by admit.
	reqUsed, tokUsed int64
}

// matchBuf is the stack capacity for matches; more spill to the heap.
const matchBuf = 16

// mayHaveSubject reports whether some user-path subject is n bytes long.
func (s *ruleSet) mayHaveSubject(n int) bool {
	if n >= 256 {
		n = 0
	}
	return s.pathLens[n/64]&(1<<(n%64)) != 0
}

// matchPath appends the rules covering path (normalized, trimmed) to ms,
// from the root down, looking up or creating child partitions of templates.
func (s *ruleSet) matchPath(ms []match, path string) []match {
	if s.mayHaveSubject(1) {
		if rules := s.paths["/"]; rules != nil {
			ms = appendPathRules(ms, rules, "/", path)
		}
	}
	for i := 2; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' || !s.mayHaveSubject(i) {
			continue
		}
		anc := path[:i]
		if rules := s.paths[anc]; rules != nil {
			ms = appendPathRules(ms, rules, anc, path)
		}
	}
	return ms
}

// appendPathRules appends the rules on subject anc that apply to path.
func appendPathRules(ms []match, rules []*ruleState, anc, path string) []match {
	for _, rs := range rules {
		if rs.g.tmpl == nil {
			ms = append(ms, match{rs: rs, c: rs.g.agg, pos: len(ms)})
			continue
		}
		child, ok := childOf(anc, path)
		if !ok {
			continue // a template does not match its own path
		}
		ms = append(ms, match{rs: rs, c: rs.g.tmpl.partition(child, rs.g.period), pos: len(ms)})
	}
	return ms
}

// targetKeyBuf is the stack buffer for lower-casing target lookup keys.
const targetKeyBuf = 192

// matchTarget appends the provider rules of provider and the model rules
// of "provider/model" and of the bare model.
func (s *ruleSet) matchTarget(ms []match, provider, model string) []match {
	if len(s.providers) == 0 && len(s.models) == 0 {
		return ms
	}
	var buf [targetKeyBuf]byte
	if provider != "" && len(s.providers) > 0 {
		b := appendLower(buf[:0], provider)
		ms = appendAggRules(ms, s.providers[string(b)])
	}
	if model != "" && len(s.models) > 0 {
		var b []byte
		if provider != "" {
			b = appendLower(buf[:0], provider)
			b = append(b, '/')
			b = appendLower(b, model)
			ms = appendAggRules(ms, s.models[string(b)])
		}
		b = appendLower(buf[:0], model)
		ms = appendAggRules(ms, s.models[string(b)])
	}
	return ms
}

// appendAggRules appends rules that have a single counter.
func appendAggRules(ms []match, rules []*ruleState) []match {
	for _, rs := range rules {
		ms = append(ms, match{rs: rs, c: rs.g.agg, pos: len(ms)})
	}
	return ms
}
