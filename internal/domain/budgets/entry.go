package budgets

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// ScopeUserPath is the scope of every budget entry: budgets cap user
// paths.
const ScopeUserPath = "user_path"

// Entry is the admin and self-service view of one budget in its current
// period.
type Entry struct {
	// UserPath is the budget's user path.
	UserPath string `json:"user_path"`
	// Scope is always "user_path".
	Scope string `json:"scope"`
	// Subject is the budget's user path (the scope's subject).
	Subject string `json:"subject"`
	// EffectiveSubject is the path whose spend the entry shows: the
	// caller's child of a per_child template in a caller's view, else
	// UserPath.
	EffectiveSubject string `json:"effective_subject"`
	// Period is the name of a named period; empty for a custom one.
	Period string `json:"period,omitempty"`
	// PeriodSeconds is the period's nominal length (Monthly: 2592000).
	PeriodSeconds int64 `json:"period_seconds"`
	// Amount is the cap in USD per period.
	Amount catalog.Amount `json:"amount"`
	// Spent is the spend in the current period since the later of its
	// start and the last reset. A template row of the admin list has no
	// aggregate spend and shows 0.
	Spent catalog.Amount `json:"spent"`
	// Remaining is Amount minus Spent, at least 0.
	Remaining catalog.Amount `json:"remaining"`
	// UsageRatio is Spent / Amount (1 for an amount of 0).
	UsageRatio float64 `json:"usage_ratio"`
	// HasUsage reports spend in the current period (for a template row of
	// the admin list: by any child).
	HasUsage bool `json:"has_usage"`
	// PeriodStart is the start of the current period.
	PeriodStart time.Time `json:"period_start"`
	// PeriodEnd is the end of the current period; a refused request may
	// retry then.
	PeriodEnd time.Time `json:"period_end"`
	// PeriodLabel names the current period (see Window.Label).
	PeriodLabel string `json:"period_label"`
	// PeriodRatio is the elapsed fraction of the current period.
	PeriodRatio float64 `json:"period_ratio"`
	// PerChild marks a template.
	PerChild bool `json:"per_child"`
	// Source is "config" or "manual".
	Source string `json:"source"`
	// CreatedAt is when the budget was created.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when its amount or per_child last changed.
	UpdatedAt time.Time `json:"updated_at"`
	// LastResetAt is when it was last reset; it is written as "" when it
	// never was.
	LastResetAt time.Time `json:"last_reset_at"`
	// Children is, on a template row of the admin list, how many children
	// have spend in the current period; absent on other rows.
	Children *int `json:"children,omitempty"`
	// ChildrenExhausted is, on a template row of the admin list, how many
	// of those children have spent at least the amount; absent on other
	// rows.
	ChildrenExhausted *int `json:"children_exhausted,omitempty"`
}

// MarshalJSON writes the entry with times in RFC 3339 (UTC) and an empty
// last_reset_at for a budget never reset.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	last := ""
	if !e.LastResetAt.IsZero() {
		last = e.LastResetAt.UTC().Format(time.RFC3339Nano)
	}
	return json.Marshal(struct {
		plain
		LastResetAt string `json:"last_reset_at"`
	}{plain(e), last})
}

// view builds the entry of e at now showing spent for effective.
func (e *entry) view(effective string, spent float64, hasUsage bool, now time.Time) Entry {
	b := e.b
	w := e.window(now.UnixNano(), now)
	win := Window{time.Unix(0, w.start).UTC(), time.Unix(0, w.end).UTC()}
	ratio := 1.0
	if b.Amount > 0 {
		ratio = spent / b.Amount
	}
	return Entry{
		UserPath:         b.UserPath,
		Scope:            ScopeUserPath,
		Subject:          b.UserPath,
		EffectiveSubject: effective,
		Period:           b.Period.Name(),
		PeriodSeconds:    b.Period.Seconds(),
		Amount:           catalog.Amount(b.Amount),
		Spent:            catalog.Amount(spent),
		Remaining:        catalog.Amount(max(b.Amount-spent, 0)),
		UsageRatio:       ratio,
		HasUsage:         hasUsage,
		PeriodStart:      win.Start,
		PeriodEnd:        win.End,
		PeriodLabel:      win.Label(b.Period),
		PeriodRatio:      win.Ratio(now),
		PerChild:         b.PerChild,
		Source:           b.Source,
		CreatedAt:        b.CreatedAt.UTC(),
		UpdatedAt:        b.UpdatedAt.UTC(),
		LastResetAt:      b.LastResetAt,
	}
}

// listView is e's row of the admin list: its spend, or for a template no
// aggregate spend and has_usage when any child has spent.
func (e *entry) listView(now time.Time) Entry {
	if e.g.perChild {
		e.g.mu.RLock()
		start := e.window(now.UnixNano(), now).start
		used, exhausted := e.childCounts(start)
		e.g.mu.RUnlock()
		v := e.view(e.b.UserPath, 0, used > 0, now)
		v.Children, v.ChildrenExhausted = &used, &exhausted
		v.UsageRatio = 0
		if e.b.Amount == 0 {
			v.UsageRatio = 1
		}
		return v
	}
	spent := e.spent(e.b.UserPath, now)
	return e.view(e.b.UserPath, spent, spent > 0, now)
}

// callerView is e's entry for a caller on userPath: for a template, the
// caller's child.
func (e *entry) callerView(userPath string, now time.Time) Entry {
	spent := e.spent(userPath, now)
	return e.view(e.b.EffectiveSubject(userPath), spent, spent > 0, now)
}

// List returns the admin view of every budget at now, sorted by user
// path then period. A template shows no aggregate spend (see Children).
func (t *Tracker) List(now time.Time) []Entry {
	s := t.snap.Load()
	t.refresh(s.list, now)
	out := make([]Entry, len(s.list))
	for i, e := range s.list {
		out[i] = e.listView(now)
	}
	return out
}

// Entry returns the admin view of budget k at now, or ErrNotFound.
func (t *Tracker) Entry(k Key, now time.Time) (Entry, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return Entry{}, notFound(k)
	}
	t.refresh([]*entry{e}, now)
	return e.listView(now), nil
}

// Children returns one entry per child of template k with spend at now,
// sorted by child path; nil for a budget that is not a template.
func (t *Tracker) Children(k Key, now time.Time) ([]Entry, error) {
	e := t.snap.Load().byKey[k]
	if e == nil {
		return nil, notFound(k)
	}
	t.refresh([]*entry{e}, now)
	kids := e.childSpend(now)
	if kids == nil {
		return nil, nil
	}
	out := make([]Entry, 0, len(kids))
	for p, v := range kids {
		out = append(out, e.view(p, v, true, now))
	}
	sortEntries(out)
	return out, nil
}

// For returns the budgets covering a caller on userPath (normalized), from
// the root down, each with the caller's spend: for a template, that of the
// caller's child. A template does not cover its own path.
func (t *Tracker) For(userPath string, now time.Time) []Entry {
	s := t.snap.Load()
	if t.sh != nil {
		var buf [8]match
		ms := s.matches(buf[:0], userPath, now.UnixNano(), now)
		list := make([]*entry, len(ms))
		for i := range ms {
			list[i] = ms[i].e
		}
		t.refresh(list, now)
	}
	out := []Entry{}
	add := func(anc string) {
		for _, e := range s.at(anc) {
			if e.b.PerChild {
				if _, ok := childSegment(anc, userPath); !ok {
					continue
				}
			}
			out = append(out, e.callerView(userPath, now))
		}
	}
	add("/")
	for i := 2; i <= len(userPath); i++ {
		if i == len(userPath) || userPath[i] == '/' {
			add(userPath[:i])
		}
	}
	return out
}

// sortEntries orders entries by effective subject, then period length.
func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int {
		if c := cmp.Compare(a.EffectiveSubject, b.EffectiveSubject); c != 0 {
			return c
		}
		if c := cmp.Compare(a.PeriodSeconds, b.PeriodSeconds); c != 0 {
			return c
		}
		return cmp.Compare(b.Period, a.Period) // named before custom
	})
}
