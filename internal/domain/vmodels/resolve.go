package vmodels

import (
	"errors"
	"strings"

	"github.com/modelgate/modelgate/internal/request/userpath"
)

// ErrAccessDenied is returned for a model a policy or a virtual model's
// own row keeps from the caller: disabled, or not for the caller's user
// path.
var ErrAccessDenied = errors.New("model access denied")

// Availability tells whether a provider's model can take a request now:
// none of its provider or model rate-limit rules is saturated and its
// provider's last model listing did not fail.
type Availability interface {
	Available(provider, model string) bool
}

// Choice is the concrete model a virtual model sent a request to.
type Choice struct {
	// Provider is the provider instance name.
	Provider string
	// Model is the model id on that provider.
	Model string
	// Slowdown is the factor the answer is delayed by (0: none).
	Slowdown float64
}

// Resolve maps requested through the virtual models. isAlias is false
// when requested is not a virtual model's source (the caller routes it as
// a provider model). Otherwise the choice skips unavailable targets
// (weighted round robin or cheapest first), keeps a detected session on
// the target that served it while that target is available (in the
// shared PinStore when one is set, see SharePins), follows
// chains of aliases, and falls back to the first target when none is
// available. av nil counts every target available. err is
// ErrAccessDenied when the row is disabled or not for userPath.
func (s *Service) Resolve(requested, userPath, session string, av Availability) (c Choice, isAlias bool, err error) {
	if s == nil {
		return Choice{}, false, nil
	}
	t := s.snap.Load()
	a := t.aliases[requested]
	if a == nil {
		return Choice{}, false, nil
	}
	if !a.enabled || !pathAllowed(a.paths, userPath) {
		return Choice{}, true, ErrAccessDenied
	}
	idx := -1
	var key string
	var ps PinStore
	pinned, shared := -1, false
	if a.affinity && session != "" {
		key = a.source + "\x00" + userPath + "\x00" + session
		if ps, pinned, shared = s.sharedPin(a, key); shared {
			if pinned >= 0 && a.available(pinned, av, 0) {
				idx = pinned
			}
		} else if i, ok := s.pins.get(key, t.gen); ok && i < len(a.targets) && a.available(i, av, 0) {
			idx = i
		}
	}
	if idx < 0 {
		idx = a.choose(av, 0)
	}
	if key != "" {
		s.pins.set(key, t.gen, idx)
		if shared && idx != pinned {
			_ = ps.SetPin(key, a.pinValue(idx), PinIdle)
		}
	}
	return t.follow(a, idx, av, 0), true, nil
}

// follow turns target idx of a into the concrete model, picking again
// inside a chained alias, and settles the slowdown: the nearest alias
// that sets one, else the policy of the concrete model.
func (t *table) follow(a *alias, idx int, av Availability, depth int) Choice {
	tg := &a.targets[idx]
	var c Choice
	if tg.sub != nil && depth+1 < MaxChainDepth {
		c = t.follow(tg.sub, tg.sub.choose(av, depth+1), av, depth+1)
		if a.slowdown != nil {
			c.Slowdown = *a.slowdown
		}
		return c
	}
	c = Choice{Provider: tg.provider, Model: tg.model}
	switch {
	case a.slowdown != nil:
		c.Slowdown = *a.slowdown
	default:
		if p := t.policies.lookup(tg.provider, tg.model); p != nil && p.Slowdown != nil {
			c.Slowdown = *p.Slowdown
		}
	}
	return c
}

// choose picks a target index among the available ones: the cheapest
// under the cost strategy, else by smooth weighted round robin (a target
// of weight w takes w of every sum-of-weights picks). With none
// available it is the first target.
func (a *alias) choose(av Availability, depth int) int {
	var down uint64 // bit i: target i unavailable (targets past 64 count as available)
	up := 0
	for i := range a.targets {
		if a.available(i, av, depth) {
			up++
		} else if i < 64 {
			down |= 1 << i
		}
	}
	if up == 0 {
		return 0
	}
	if a.cost {
		for _, i := range a.byPrice {
			if i >= 64 || down&(1<<i) == 0 {
				return i
			}
		}
	}
	if len(a.targets) == 1 {
		return 0
	}
	a.mu.Lock()
	best, total := -1, 0.0
	for i := range a.targets {
		if i < 64 && down&(1<<i) != 0 {
			continue
		}
		a.current[i] += a.targets[i].weight
		total += a.targets[i].weight
		if best < 0 || a.current[i] > a.current[best] {
			best = i
		}
	}
	a.current[best] -= total
	a.mu.Unlock()
	return best
}

// available reports whether target i of a can take a request: its model
// is available, or, for a chained alias, one of its targets is.
func (a *alias) available(i int, av Availability, depth int) bool {
	tg := &a.targets[i]
	if tg.sub != nil {
		if depth+1 >= MaxChainDepth {
			return false
		}
		for j := range tg.sub.targets {
			if tg.sub.available(j, av, depth+1) {
				return true
			}
		}
		return false
	}
	return av == nil || av.Available(tg.provider, tg.model)
}

// Access checks a request for model on provider (not through a virtual
// model) against the most specific policy: ErrAccessDenied when the
// policy disables it or does not cover userPath. slowdown is the
// policy's.
func (s *Service) Access(userPath, provider, model string) (slowdown float64, err error) {
	if s == nil {
		return 0, nil
	}
	p := s.snap.Load().policies.lookup(provider, model)
	if p == nil {
		return 0, nil
	}
	if !allows(p, userPath) {
		return 0, ErrAccessDenied
	}
	if p.Slowdown != nil {
		slowdown = *p.Slowdown
	}
	return slowdown, nil
}

// Allowed reports whether a caller at userPath may use model on provider
// directly (see Access).
func (s *Service) Allowed(userPath, provider, model string) bool {
	_, err := s.Access(userPath, provider, model)
	return err == nil
}

// Policy returns the policy row that decides access to model on provider,
// or nil when none does (the model is enabled for everyone).
func (s *Service) Policy(provider, model string) *Row {
	if s == nil {
		return nil
	}
	return s.snap.Load().policies.lookup(provider, model)
}

// FailoverTargets returns the selectors tried, in order, when a request
// for requested, served by model on provider, fails: the route whose
// primary is requested, else "provider/model", else model; nil without
// one.
func (s *Service) FailoverTargets(requested, provider, model string) []string {
	if s == nil {
		return nil
	}
	f := s.snap.Load().failover
	if len(f) == 0 {
		return nil
	}
	if ts, ok := f[requested]; ok {
		return ts
	}
	if ts, ok := f[provider+"/"+model]; ok {
		return ts
	}
	return f[model]
}

// HasFailover reports whether any failover route is in force.
func (s *Service) HasFailover() bool {
	return s != nil && len(s.snap.Load().failover) > 0
}

// IsAlias reports whether requested is the source of a virtual model
// with targets.
func (s *Service) IsAlias(requested string) bool {
	return s != nil && s.snap.Load().aliases[requested] != nil
}

// Aliases returns the virtual models with targets a caller at userPath
// may use, by source.
func (s *Service) Aliases(userPath string) []Row {
	if s == nil {
		return nil
	}
	t := s.snap.Load()
	var out []Row
	for _, r := range t.rows {
		if len(r.Targets) > 0 && allows(&r, userPath) {
			out = append(out, r)
		}
	}
	return out
}

// policies indexes the rows without targets by the selector they match.
type policies struct {
	exact    map[string]map[string]*Row // provider → model → row ("provider/model")
	provider map[string]*Row            // "provider/*"
	model    map[string]*Row            // "model"
	star     *Row                       // "*"
	any      bool
}

// add indexes a policy row by its selector.
func (p *policies) add(r *Row) {
	p.any = true
	src := r.Source
	switch {
	case src == "*":
		p.star = r
	case strings.HasSuffix(src, "/*"):
		if p.provider == nil {
			p.provider = map[string]*Row{}
		}
		p.provider[strings.TrimSuffix(src, "/*")] = r
	case strings.Contains(src, "/"):
		prov, model, _ := strings.Cut(src, "/")
		if p.exact == nil {
			p.exact = map[string]map[string]*Row{}
		}
		if p.exact[prov] == nil {
			p.exact[prov] = map[string]*Row{}
		}
		p.exact[prov][model] = r
	default:
		if p.model == nil {
			p.model = map[string]*Row{}
		}
		p.model[src] = r
	}
}

// lookup returns the most specific policy for model on provider:
// "provider/model", then "provider/*", then "model", then "*"; nil when
// none applies.
func (p *policies) lookup(provider, model string) *Row {
	if !p.any {
		return nil
	}
	if r := p.exact[provider][model]; r != nil {
		return r
	}
	if r := p.provider[provider]; r != nil {
		return r
	}
	if r := p.model[model]; r != nil {
		return r
	}
	return p.star
}

// allows reports whether the row lets a caller at userPath use what it
// selects: it is enabled and, when it names user paths, the caller is at
// or under one of them. A nil row allows everyone.
func allows(r *Row, userPath string) bool {
	if r == nil {
		return true
	}
	if r.Enabled != nil && !*r.Enabled {
		return false
	}
	return pathAllowed(r.UserPaths, userPath)
}

// pathAllowed reports whether userPath is at or under one of paths; an
// empty list allows every path.
func pathAllowed(paths []string, userPath string) bool {
	if len(paths) == 0 {
		return true
	}
	if userPath == "" {
		userPath = "/"
	}
	for _, p := range paths {
		if userpath.Covers(p, userPath) {
			return true
		}
	}
	return false
}
