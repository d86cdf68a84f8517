package limits

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Options configure New.
type Options struct {
	// Rules persists the manual rules; nil keeps them in memory only.
	Rules RuleStore
	// Counters persists snapshots of the window counters; nil keeps them
	// in memory only.
	Counters CounterStore
	// FlushInterval is the period of counter snapshots to Counters; 0
	// skips the periodic write (counters are still loaded by New and
	// written by Close).
	FlushInterval time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
	// Logger receives warnings and errors; nil means zap.NewNop().
	Logger *zap.Logger
	// TokensEnforced says token caps are enforced. Set it when usage
	// tracking is on; without usage records token caps are not enforced
	// (a warning is logged once while token rules exist).
	TokensEnforced bool
	// QuotaTemplates says the quota_templates entitlement is active, which
	// per_child rules require.
	QuotaTemplates bool
	// Shared, when set, keeps the window counters and concurrency slots
	// in a backend shared by several processes; the in-memory counters
	// then serve only while it does not answer. The Engine closes it.
	Shared Shared
	// SharedTimeout bounds each call to Shared on the request path;
	// 0 means DefaultSharedTimeout.
	SharedTimeout time.Duration
	// SharedFailClosed refuses requests (Rejection.Unavailable) while
	// Shared does not answer, instead of counting them per process.
	SharedFailClosed bool
	// OnChange, when set, is called after each admin change made through
	// this Engine (not under its lock), so that other processes can
	// follow it with ApplyChange.
	OnChange func(Change)
}

// evictEvery is how often idle child partitions are dropped.
const evictEvery = 30 * time.Second

// idleGauge is how long an unused per-child concurrency gauge is kept.
const idleGauge = time.Minute

// Engine is the rate limiter: the live rules, their counters and the
// persistence of both. It is safe for concurrent use. One Engine should
// live as long as the stores it persists to (share it across config
// reloads and call SetConfigRules at each load).
type Engine struct {
	rules          RuleStore
	counters       CounterStore
	log            *zap.Logger
	clock          func() time.Time
	flushInterval  time.Duration
	tokensEnforced atomic.Bool
	entitled       atomic.Bool
	warnedTokens   atomic.Bool

	// set is the live rule snapshot read by admissions without locking.
	set atomic.Pointer[ruleSet]

	// mu serialises admin operations and guards the fields below.
	mu      sync.Mutex
	manual  map[Key]Rule
	config  map[Key]Rule
	groups  map[Key]*group
	pending map[Key]*pendingGroup // loaded counters not yet claimed
	// configured is set by the first SetConfigRules; loaded counters still
	// unclaimed then belong to rules that no longer exist.
	configured bool

	// gen is the last generation handed out (see persist.go).
	gen atomic.Uint64

	// shared is the multi-process backend (nil: memory only); see
	// sharedadmit.go for the fields below.
	shared        Shared
	sharedTimeout time.Duration
	failClosed    atomic.Bool
	sharedDown    atomic.Bool
	fallbacks     atomic.Uint64
	warnedAt      atomic.Int64
	warnedCount   atomic.Uint64
	onChange      func(Change)
	kidNames      childNames // child names listed by shared (children.go)

	flushMu   sync.Mutex // serialises snapshots
	lastEvict time.Time  // guarded by flushMu
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New creates an Engine, loading manual rules and counter snapshots from
// opts.Rules and opts.Counters, and starts the background snapshot and eviction goroutine.
// Loaded counters of config rules are attached when SetConfigRules
// installs those rules.
func New(opts Options) (*Engine, error) {
	e := &Engine{
		rules:         opts.Rules,
		counters:      opts.Counters,
		log:           opts.Logger,
		clock:         opts.Now,
		flushInterval: opts.FlushInterval,
		manual:        map[Key]Rule{},
		config:        map[Key]Rule{},
		groups:        map[Key]*group{},
		pending:       map[Key]*pendingGroup{},
		stop:          make(chan struct{}),
		done:          make(chan struct{}),
		shared:        opts.Shared,
		sharedTimeout: opts.SharedTimeout,
		onChange:      opts.OnChange,
	}
	if e.sharedTimeout <= 0 {
		e.sharedTimeout = DefaultSharedTimeout
	}
	e.failClosed.Store(opts.SharedFailClosed)
	if e.log == nil {
		e.log = zap.NewNop()
	}
	if e.clock == nil {
		e.clock = time.Now
	}
	e.tokensEnforced.Store(opts.TokensEnforced)
	e.entitled.Store(opts.QuotaTemplates)
	e.set.Store(emptySet)
	if err := e.load(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.forget(e.rebuild())
	e.mu.Unlock()
	e.warnTokens()
	e.lastEvict = e.clock()
	go e.loop()
	return e, nil
}

// nowNanos is the clock in unix nanoseconds.
func (e *Engine) nowNanos() int64 { return e.clock().UnixNano() }

// newGen hands out a fresh generation.
func (e *Engine) newGen() uint64 { return e.gen.Add(1) }

// SetTokensEnforced switches token-cap enforcement (on when usage tracking
// is on).
func (e *Engine) SetTokensEnforced(on bool) {
	e.tokensEnforced.Store(on)
	if on {
		e.warnedTokens.Store(false)
	}
	e.warnTokens()
}

// SetQuotaTemplates sets whether the quota_templates entitlement is active.
// Rules already installed are kept.
func (e *Engine) SetQuotaTemplates(entitled bool) { e.entitled.Store(entitled) }

// warnTokens logs once that token caps are not enforced while token rules
// exist and enforcement is off.
func (e *Engine) warnTokens() {
	if e.tokensEnforced.Load() || e.warnedTokens.Load() {
		return
	}
	for _, rs := range e.set.Load().list {
		if rs.rule.MaxTokens > 0 {
			if e.warnedTokens.CompareAndSwap(false, true) {
				e.log.Warn("rate-limit token caps are not enforced because usage tracking is off; request and concurrency caps still apply",
					zap.Stringer("rule", rs.key))
			}
			return
		}
	}
}

// SetConfigRules replaces the rules seeded from configuration (YAML and
// environment). They are validated against the current entitlement, marked
// source "config", shadow manual rules with the same key, and are never
// persisted. Rules whose key stays keep their counters; removed rules lose
// theirs. Call it at every config load, also with no rules.
func (e *Engine) SetConfigRules(rules []Rule) error {
	cfg := make(map[Key]Rule, len(rules))
	for i, r := range rules {
		r.Source = SourceConfig
		r = r.normalized()
		if err := r.Validate(e.entitled.Load()); err != nil {
			return fmt.Errorf("rate-limit config rule %d (%s): %w", i, r.Key(), err)
		}
		k := r.Key()
		if _, dup := cfg[k]; dup {
			return fmt.Errorf("rate-limit config rule %d: %w: %s defined twice", i, ErrInvalidRule, k)
		}
		cfg[k] = r
	}
	e.mu.Lock()
	e.config = cfg
	dropped := e.rebuild()
	if !e.configured {
		// Loaded counters nobody claimed belong to rules that are gone.
		e.configured = true
		for k := range e.pending {
			dropped.keys = append(dropped.keys, k)
		}
		clear(e.pending)
	}
	e.forget(dropped)
	e.mu.Unlock()
	e.warnTokens()
	return nil
}

// Upsert creates or updates a manual rule. previous names the rule being
// edited when its key changes (scope, subject or period): that rule is
// removed and r starts with fresh counters. Editing only the caps keeps
// the counters; switching per_child restarts them. Config rules are
// read-only (ErrRuleReadOnly); an edit onto another rule's key fails with
// ErrRuleExists, a previous that names no rule with ErrRuleNotFound.
func (e *Engine) Upsert(r Rule, previous *Key) error {
	r.Source = SourceManual
	r = r.normalized()
	if err := r.Validate(e.entitled.Load()); err != nil {
		return err
	}
	k := r.Key()
	e.mu.Lock()
	var prev *Key
	if previous != nil {
		if pk := previous.Normalize(); pk != k {
			prev = &pk
		}
	}
	if prev != nil {
		if _, ok := e.config[*prev]; ok {
			e.mu.Unlock()
			return fmt.Errorf("%w: %s", ErrRuleReadOnly, *prev)
		}
		if _, ok := e.manual[*prev]; !ok {
			e.mu.Unlock()
			return fmt.Errorf("%w: previous %s", ErrRuleNotFound, *prev)
		}
		if _, ok := e.manual[k]; ok {
			e.mu.Unlock()
			return fmt.Errorf("%w: %s", ErrRuleExists, k)
		}
	}
	if _, ok := e.config[k]; ok {
		e.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRuleReadOnly, k)
	}
	if err := e.persistRule(&r, prev); err != nil {
		e.mu.Unlock()
		return err
	}
	e.manual[k] = r
	if prev != nil {
		delete(e.manual, *prev)
	}
	dropped := e.rebuild()
	e.forget(dropped)
	e.resetSharedLogged(dropped.keys)
	e.mu.Unlock()
	e.warnTokens()
	e.notify(Change{Rules: true})
	return nil
}

// Delete removes a manual rule and resets its counters (all children of a
// template). In-flight slots are released when their requests finish.
func (e *Engine) Delete(k Key) error {
	k = k.Normalize()
	e.mu.Lock()
	if _, ok := e.config[k]; ok {
		e.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRuleReadOnly, k)
	}
	if _, ok := e.manual[k]; !ok {
		e.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRuleNotFound, k)
	}
	if err := e.persistRule(nil, &k); err != nil {
		e.mu.Unlock()
		return err
	}
	delete(e.manual, k)
	dropped := e.rebuild()
	e.forget(dropped)
	e.resetSharedLogged(dropped.keys)
	e.mu.Unlock()
	e.notify(Change{Rules: true})
	return nil
}

// ResetOne clears the request and token windows of one rule (manual or
// config; all children of a template). A user-path k with no rule of its
// own that is a direct child of a per_child template of the same period
// ("/customers/alice" under "/customers") clears that child's windows
// only. In-flight slots are kept until their requests finish. The
// in-memory reset always happens; an error reports that it could not be
// persisted.
func (e *Engine) ResetOne(k Key) error {
	k = k.Normalize()
	e.mu.Lock()
	g := e.groups[k]
	if g == nil {
		if tg, child := e.templateOf(k); tg != nil {
			err := e.resetChild(tg, child)
			e.mu.Unlock()
			e.notify(Change{ResetChildren: []CounterID{{Rule: tg.key, Child: child}}})
			return err
		}
		e.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRuleNotFound, k)
	}
	gen := e.newGen()
	err := e.markReset([]Key{g.key}, gen)
	g.clear(gen)
	if serr := e.resetShared([]Key{g.key}, false); serr != nil && err == nil {
		err = serr
	}
	e.mu.Unlock()
	e.notify(Change{Reset: []Key{k}})
	return err
}

// ResetAll clears the request and token windows of every rule. A failure
// to persist the reset is logged.
func (e *Engine) ResetAll() {
	e.mu.Lock()
	gen := e.newGen()
	if err := e.markResetAll(gen); err != nil {
		e.log.Error("rate limits: persisting reset-all failed; counters may come back after a restart", zap.Error(err))
	}
	for _, g := range e.groups {
		g.clear(gen)
	}
	if err := e.resetShared(nil, true); err != nil {
		e.log.Error("rate limits: reset-all of the shared counters failed", zap.Error(err))
	}
	e.mu.Unlock()
	e.notify(Change{ResetAll: true})
}

// dropSet lists groups removed by rebuild and the generation their reset
// markers must carry: allocated before any replacement group, so a
// replacement under the same key (per_child switched) is newer than the
// marker and its snapshots stay valid.
type dropSet struct {
	keys []Key
	gen  uint64
}

// rebuild installs a rule snapshot for the current manual and config rules
// (config shadowing manual), reusing the groups of unchanged keys, and
// returns the groups it dropped. Caller holds mu.
func (e *Engine) rebuild() (dropped dropSet) {
	dropped.gen = e.newGen()
	eff := make(map[Key]Rule, len(e.manual)+len(e.config))
	for k, r := range e.manual {
		eff[k] = r
	}
	for k, r := range e.config {
		eff[k] = r
	}
	for k, g := range e.groups {
		if r, ok := eff[k]; !ok || r.PerChild != g.perChild {
			delete(e.groups, k)
			dropped.keys = append(dropped.keys, g.key)
		}
	}
	states := make([]*ruleState, 0, len(eff))
	for k, r := range eff {
		g := e.groups[k]
		if g == nil {
			g = e.newGroup(k, r.PerChild)
			e.groups[k] = g
		}
		states = append(states, &ruleState{rule: r, key: k, g: g})
	}
	e.set.Store(newRuleSet(states))
	return dropped
}

// newGroup creates the counters of a rule key, attaching loaded counters
// if any. Caller holds mu.
func (e *Engine) newGroup(k Key, perChild bool) *group {
	g := &group{key: k, period: k.Duration(), perChild: perChild}
	gen := e.newGen()
	sid := k.SharedID()
	if perChild {
		g.tmpl = newTemplate(gen, sid)
	} else {
		g.agg = newCounter(g.period, "", gen)
		g.agg.sid = sid
	}
	if p := e.pending[k]; p != nil {
		delete(e.pending, k)
		p.attach(g)
	}
	return g
}

// forget persists that dropped groups' counters are gone. Caller holds mu.
func (e *Engine) forget(d dropSet) {
	if len(d.keys) == 0 {
		return
	}
	if err := e.markReset(d.keys, d.gen); err != nil {
		e.log.Warn("rate limits: could not clear persisted counters of removed rules", zap.Error(err))
	}
}

// loop takes periodic snapshots and evicts idle child partitions until
// Close.
func (e *Engine) loop() {
	defer close(e.done)
	interval := e.flushInterval
	if interval <= 0 || e.counters == nil {
		interval = evictEvery
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if e.counters != nil && e.flushInterval > 0 {
				e.flush(false)
			}
			e.flushMu.Lock()
			due := e.clock().Sub(e.lastEvict) >= evictEvery
			if due {
				e.lastEvict = e.clock()
			}
			e.flushMu.Unlock()
			if due {
				e.evict()
			}
		}
	}
}

// evict drops idle child partitions of every template and deletes their
// snapshots.
func (e *Engine) evict() {
	now := e.nowNanos()
	for _, rs := range e.set.Load().list {
		if rs.g.tmpl == nil {
			continue
		}
		for _, child := range rs.g.tmpl.evict(now, idleGauge) {
			if e.counters != nil && rs.g.period > 0 {
				e.counters.QueueDelete(CounterID{Rule: rs.g.key, Child: child})
			}
		}
	}
}

// Close stops the background goroutine, writes a final snapshot of the
// counters (waiting until the store has committed it) and closes the
// Shared backend, giving back its leases. It is idempotent.
// The Engine keeps admitting in memory afterwards but persists nothing more
// periodically; the stores are not closed.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		close(e.stop)
		<-e.done
		if e.counters != nil {
			e.closeErr = e.flush(true)
		}
		if e.shared != nil {
			if err := e.shared.Close(); err != nil && e.closeErr == nil {
				e.closeErr = fmt.Errorf("rate limits: closing the shared counters: %w", err)
			}
		}
	})
	return e.closeErr
}
