package sessions

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Defaults of Options.
const (
	// DefaultMaxSessions is how many sessions' counters a guard keeps.
	DefaultMaxSessions = 100_000
	// DefaultIdle is how long a session's counters are kept after its
	// last request.
	DefaultIdle = 24 * time.Hour
)

// Options configures a Guard.
type Options struct {
	// Storage holds the limits written through the admin API; nil keeps
	// them in memory only.
	Storage Storage
	// MaxSessions bounds the sessions counted at once (the least recently
	// used is forgotten first); 0 is DefaultMaxSessions.
	MaxSessions int
	// Idle is how long a session is remembered after its last request; 0
	// is DefaultIdle. A forgotten session starts from zero.
	Idle time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Guard holds the session limits and counts the sessions they cover, in
// this process: with several gateway processes each counts the requests
// it serves (a session spread over n processes may make up to n times
// the limits).
type Guard struct {
	st  Storage
	now func() time.Time

	mu     sync.RWMutex
	config []Limit
	manual map[string]Limit
	// eff is the limits in force (List), made again on every change.
	eff []Limit

	t *table
}

// New returns a guard with the stored limits loaded.
func New(o Options) (*Guard, error) {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	g := &Guard{st: o.Storage, now: o.Now, manual: map[string]Limit{}, t: newTable(o.MaxSessions, o.Idle)}
	if err := g.Reload(); err != nil {
		return nil, err
	}
	return g, nil
}

// SetConfig installs the configuration's limits (see FromConfig).
func (g *Guard) SetConfig(list []Limit) {
	g.mu.Lock()
	g.config = slices.Clone(list)
	g.eff = g.effective()
	g.mu.Unlock()
}

// Reload replaces the admin-written limits with the stored ones, so that
// a change another process wrote takes effect here. A stored limit that
// does not validate is left out. Counters are kept.
func (g *Guard) Reload() error {
	if g.st == nil {
		return nil
	}
	list, err := g.st.SessionLimits()
	if err != nil {
		return fmt.Errorf("sessions: loading the session limits: %w", err)
	}
	m := make(map[string]Limit, len(list))
	for _, l := range list {
		if n, err := l.Normalized(); err == nil {
			n.Source = SourceManual
			m[n.UserPath] = n
		}
	}
	g.mu.Lock()
	g.manual = m
	g.eff = g.effective()
	g.mu.Unlock()
	return nil
}

// List returns the limits in force by user path: an admin-written limit
// replaces a configuration limit on the same path.
func (g *Guard) List() []Limit {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return slices.Clone(g.eff)
}

// effective computes List. Caller holds g.mu.
func (g *Guard) effective() []Limit {
	out := make([]Limit, 0, len(g.config)+len(g.manual))
	for _, l := range g.config {
		if _, over := g.manual[l.UserPath]; !over {
			out = append(out, l)
		}
	}
	for _, l := range g.manual {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Limit) int {
		if a.UserPath < b.UserPath {
			return -1
		}
		if a.UserPath > b.UserPath {
			return 1
		}
		return 0
	})
	return out
}

// Put validates and stores l as an admin-written limit, replacing any on
// its user path; a *FieldError says what is wrong with l.
func (g *Guard) Put(l Limit) (Limit, error) {
	n, err := l.Normalized()
	if err != nil {
		return Limit{}, err
	}
	n.Source = SourceManual
	if g.st != nil {
		if err := g.st.PutSessionLimit(n); err != nil {
			return Limit{}, err
		}
	}
	g.mu.Lock()
	g.manual[n.UserPath] = n
	g.eff = g.effective()
	g.mu.Unlock()
	return n, nil
}

// Delete removes the admin-written limit of userPath (a configuration
// limit on it comes back in force); ErrNotFound when there is none, a
// *FieldError when userPath is not a user path.
func (g *Guard) Delete(userPath string) error {
	p, err := limits.MatchPath(userPath)
	if err != nil || userPath == "" {
		msg := "missing"
		if err != nil {
			msg = err.Error()
		}
		return &FieldError{Field: "user_path", Msg: msg}
	}
	g.mu.RLock()
	_, ok := g.manual[p]
	g.mu.RUnlock()
	if !ok {
		return ErrNotFound
	}
	if g.st != nil {
		if err := g.st.DeleteSessionLimit(p); err != nil {
			return err
		}
	}
	g.mu.Lock()
	delete(g.manual, p)
	g.eff = g.effective()
	g.mu.Unlock()
	return nil
}

// Active reports whether any limit is in force: without one a request
// needs no admission.
func (g *Guard) Active() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.eff) > 0
}

// scoped is a limit matched for one request, with its counter scope.
type scoped struct {
	l     Limit
	scope string
}

// matching returns the limits covering userPath (MatchPath form).
func (g *Guard) matching(path string) []scoped {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []scoped
	for _, l := range g.eff {
		if l.PerChild {
			if child, ok := limits.TemplateChild(l.UserPath, path); ok {
				out = append(out, scoped{l, child})
			}
		} else if userpath.Covers(l.UserPath, path) {
			out = append(out, scoped{l, l.UserPath})
		}
	}
	return out
}

// Admit admits one request of session sessionID on userPath, counting it
// against every limit covering the path, or refuses it when the session
// reached one of them. A request without a session, or on a path no limit
// covers, is admitted with a nil Admission. The caller reports how the
// admitted request went with Admission.Done.
func (g *Guard) Admit(userPath, sessionID string) (*Admission, *Refusal) {
	if sessionID == "" || !g.Active() {
		return nil, nil
	}
	path, err := limits.MatchPath(userPath)
	if err != nil {
		return nil, nil
	}
	ms := g.matching(path)
	if len(ms) == 0 {
		return nil, nil
	}
	now := g.now()
	g.t.mu.Lock()
	defer g.t.mu.Unlock()
	g.t.sweep(now)
	cs := make([]*counter, len(ms))
	for i, m := range ms {
		c := g.t.get(counterKey{scope: m.scope, session: sessionID}, now)
		cs[i] = c
		if which, value := over(m.l, c); which != "" {
			c.limited = which + "=" + value
			return nil, &Refusal{Session: sessionID, Scope: m.scope, Limit: which, Value: value,
				RetryAfter: int64(g.t.idle / time.Second)}
		}
	}
	for _, c := range cs {
		c.requests++
		c.limited = ""
	}
	return &Admission{g: g, cs: cs}, nil
}

// Limited returns the limit that refused session sessionID on userPath
// ("max_repeats=3"), "" when none did. It reads this process's counters:
// a session forgotten (idle, or pushed out) reads "".
func (g *Guard) Limited(userPath, sessionID string) string {
	if sessionID == "" || !g.Active() {
		return ""
	}
	path, err := limits.MatchPath(userPath)
	if err != nil {
		return ""
	}
	ms := g.matching(path)
	g.t.mu.Lock()
	defer g.t.mu.Unlock()
	for _, m := range ms {
		if c := g.t.m[counterKey{scope: m.scope, session: sessionID}]; c != nil && c.limited != "" {
			return c.limited
		}
	}
	return ""
}

// over returns the limit of l that c reached and its value, "" when none.
func over(l Limit, c *counter) (which, value string) {
	switch {
	case l.MaxRequests > 0 && c.requests >= l.MaxRequests:
		return "max_requests", fmt.Sprint(l.MaxRequests)
	case l.MaxCost > 0 && c.costNanos >= nanos(l.MaxCost):
		return "max_cost", fmt.Sprint(l.MaxCost)
	case l.MaxRepeats > 0 && c.repeats >= l.MaxRepeats:
		return "max_repeats", fmt.Sprint(l.MaxRepeats)
	}
	return "", ""
}

// nanos converts an amount to billionths, saturating.
func nanos(v float64) int64 {
	n := v * 1e9
	if n >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Round(n))
}

// Admission is one admitted request's hold on its session's counters.
type Admission struct {
	g    *Guard
	cs   []*counter
	done bool
}

// Outcome is how an admitted request went.
type Outcome struct {
	// Uncounted reports that the request reached no provider (refused by
	// the gateway before, or answered from the cache): its request is
	// given back and its answer is not a repetition.
	Uncounted bool
	// Cost is what the request cost (0 when unpriced).
	Cost float64
	// Signature identifies the answer for repetition (ToolCallSignature,
	// ErrorSignature): "" for an answer that repeats nothing (text),
	// which ends a run of repeats.
	Signature string
}

// Done records the outcome of the admitted request; only the first call
// counts. A nil Admission does nothing.
func (a *Admission) Done(o Outcome) {
	if a == nil || a.done {
		return
	}
	a.done = true
	a.g.t.mu.Lock()
	defer a.g.t.mu.Unlock()
	for _, c := range a.cs {
		if o.Uncounted {
			c.requests--
			continue
		}
		if o.Cost > 0 {
			c.costNanos += nanos(o.Cost)
		}
		switch {
		case o.Signature == "":
			c.last, c.repeats = "", 0
		case o.Signature == c.last:
			c.repeats++
		default:
			c.last, c.repeats = o.Signature, 1
		}
	}
}

// Refusal is a request refused because its session reached a limit.
type Refusal struct {
	// Session is the session id.
	Session string
	// Scope is the user path the session was counted on: the limit's, or
	// for a per_child limit the child's.
	Scope string
	// Limit names the limit reached: max_requests, max_cost or
	// max_repeats.
	Limit string
	// Value is that limit's value as configured.
	Value string
	// RetryAfter is when, in seconds, the session may go on at the
	// earliest: once idle that long, it is forgotten and starts from
	// zero. A new session id goes on at once.
	RetryAfter int64
}

// Error is the refusal's message: which limit, and how to continue.
func (r *Refusal) Error() string {
	return fmt.Sprintf("session %s reached %s=%s for %s; start a new session (new session id) to continue",
		r.Session, r.Limit, r.Value, r.Scope)
}
