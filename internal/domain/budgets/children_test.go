package budgets

import (
	"errors"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestChildListAndCounts: a template's children come most spent first,
// each with its own spend, remaining and exhausted flag, the reservations
// in flight, and the template's row counts them.
func TestChildListAndCounts(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)
	clk := &clock{now: now}
	s, err := New(Options{QuotaTemplates: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	tk := Key{UserPath: "/customers", Period: Daily}
	if _, err := s.Put(tk, 1, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(Key{UserPath: "/team", Period: Daily}, 5, false); err != nil {
		t.Fatal(err)
	}
	s.Charge("/customers/alice/app", 0.75, now)
	s.Charge("/customers/alice", 0.30, now) // 1.05: past her $1
	s.Charge("/customers/bob", 0.25, now)
	s.Charge("/customers", 9, now) // the template path itself is no child
	r, ok, _, _ := s.Reserve("/customers/carol", catalog.NanosOf(0.5), now)
	if !ok {
		t.Fatal("carol's reservation refused")
	}

	kids, err := s.ChildList(tk)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 3 {
		t.Fatalf("children %+v", kids)
	}
	alice, bob, carol := kids[0], kids[1], kids[2]
	if alice.UserPath != "/customers/alice" || float64(alice.Spent) != 1.05 || !alice.Exhausted || alice.Remaining != 0 || alice.Amount != 1 {
		t.Fatalf("alice %+v", alice)
	}
	if bob.UserPath != "/customers/bob" || bob.Spent != 0.25 || bob.Exhausted || bob.Remaining != 0.75 {
		t.Fatalf("bob %+v", bob)
	}
	if carol.UserPath != "/customers/carol" || carol.Spent != 0 || carol.InFlight == nil || *carol.InFlight != 0.5 {
		t.Fatalf("carol %+v", carol)
	}
	if alice.InFlight == nil || *alice.InFlight != 0 {
		t.Fatalf("alice in flight %v", alice.InFlight)
	}
	if !alice.PeriodStart.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) || !alice.PeriodEnd.Equal(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("period %v - %v", alice.PeriodStart, alice.PeriodEnd)
	}
	r.Settle(0, now)

	for _, e := range s.List() {
		switch e.UserPath {
		case "/customers":
			if e.Children == nil || *e.Children != 2 || e.ChildrenExhausted == nil || *e.ChildrenExhausted != 1 {
				t.Fatalf("template row counts %v %v", e.Children, e.ChildrenExhausted)
			}
		case "/team":
			if e.Children != nil || e.ChildrenExhausted != nil {
				t.Fatalf("plain budget row carries counts")
			}
		}
	}

	// Errors: unknown budget, not a template.
	if _, err := s.ChildList(Key{UserPath: "/nobody", Period: Daily}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := s.ChildList(Key{UserPath: "/team", Period: Daily}); !errors.Is(err, ErrNotTemplate) {
		t.Fatalf("not a template: %v", err)
	}

	// A new period has no children.
	clk.set(now.Add(24 * time.Hour))
	if kids, _ := s.ChildList(tk); len(kids) != 0 {
		t.Fatalf("children next day %+v", kids)
	}
}

// TestResetOneChild: reset-one of a child path clears that child only,
// survives a restart (its spend rebuilt from the records since its
// reset), and a path that is no direct child of a template is not found.
func TestResetOneChild(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)
	clk := &clock{now: now}
	st, src := newMemStorage(), &fakeSource{}
	s, err := New(Options{Storage: st, Source: src, QuotaTemplates: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	tk := Key{UserPath: "/customers", Period: Daily}
	if _, err := s.Put(tk, 1, true); err != nil {
		t.Fatal(err)
	}
	charge := func(path string, cost float64, at time.Time) {
		s.Charge(path, cost, at)
		src.add(path, cost, at)
	}
	charge("/customers/alice", 1.2, now)
	charge("/customers/bob", 0.4, now)
	if ok, _, _ := s.Check("/customers/alice/app", now); ok {
		t.Fatal("alice admitted past her cap")
	}
	clk.set(now.Add(time.Minute))
	e, err := s.ResetOne(Key{UserPath: "/customers/alice", Period: Daily})
	if err != nil {
		t.Fatal(err)
	}
	if e.UserPath != "/customers" || e.EffectiveSubject != "/customers/alice" || e.Spent != 0 {
		t.Fatalf("reset answer %+v", e)
	}
	if ok, _, _ := s.Check("/customers/alice/app", clk.Now()); !ok {
		t.Fatal("alice still refused after her reset")
	}
	if v := spentOf(t, s.Tracker(), tk, "/customers/bob", clk.Now()); v != 0.4 {
		t.Fatalf("bob's spend %v after alice's reset", v)
	}
	if _, ok := st.resets[Key{UserPath: "/customers/alice", Period: Daily}]; !ok {
		t.Fatal("the child's reset mark was not stored")
	}
	charge("/customers/alice", 0.1, now.Add(2*time.Minute))

	// A restart rebuilds alice from her reset on, bob from the period start.
	clk.set(now.Add(3 * time.Minute))
	s2, err := New(Options{Storage: st, Source: src, QuotaTemplates: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	kids, err := s2.ChildList(tk)
	if err != nil || len(kids) != 2 || kids[0].UserPath != "/customers/bob" || kids[0].Spent != 0.4 ||
		kids[1].UserPath != "/customers/alice" || kids[1].Spent != 0.1 {
		t.Fatalf("children after restart %+v, %v", kids, err)
	}

	// Not children of a template: a grandchild, a path under a plain
	// budget, another period.
	if _, err := s.Put(Key{UserPath: "/team", Period: Daily}, 5, false); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Key{
		{UserPath: "/customers/alice/app", Period: Daily},
		{UserPath: "/team/app", Period: Daily},
		{UserPath: "/customers/alice", Period: Monthly},
	} {
		if _, err := s.ResetOne(k); !errors.Is(err, ErrNotFound) {
			t.Fatalf("reset %s: %v", k, err)
		}
	}
}
