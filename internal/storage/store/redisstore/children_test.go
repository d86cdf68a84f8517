package redisstore

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestBudgetChildrenThroughRedis: a template's children list the spend
// charged through every process and the reservations held in Redis, and
// resetting one child through one process clears only that child for
// all of them.
func TestBudgetChildrenThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	p1 := budgetService(t, openTest(t, url, prefix), now)
	p2 := budgetService(t, openTest(t, url, prefix), now)
	tk := budgets.Key{UserPath: "/customers", Period: budgets.Hourly}
	p1.Charge("/customers/alice/app", 0.7, now)
	p2.Charge("/customers/alice", 0.4, now)
	p2.Charge("/customers/bob", 0.25, now)
	r, ok, _, _ := p1.Reserve("/customers/bob", catalog.NanosOf(0.5), now)
	if !ok {
		t.Fatal("bob's reservation refused")
	}
	defer r.Settle(0, now)

	for i, s := range []*budgets.Service{p1, p2} {
		kids, err := s.ChildList(tk)
		if err != nil || len(kids) != 2 {
			t.Fatalf("process %d: children %+v, %v", i+1, kids, err)
		}
		alice, bob := kids[0], kids[1]
		if alice.UserPath != "/customers/alice" || alice.Spent < 1.0999 || !alice.Exhausted {
			t.Fatalf("process %d: alice %+v", i+1, alice)
		}
		if bob.UserPath != "/customers/bob" || bob.Spent != 0.25 || bob.Exhausted || bob.InFlight == nil || *bob.InFlight != 0.5 {
			t.Fatalf("process %d: bob %+v (in flight %v)", i+1, bob, bob.InFlight)
		}
		for _, e := range s.List() {
			if e.UserPath == "/customers" && (e.Children == nil || *e.Children != 2 || *e.ChildrenExhausted != 1) {
				t.Fatalf("process %d: template row counts %v/%v", i+1, e.Children, e.ChildrenExhausted)
			}
		}
	}

	if _, err := p2.ResetOne(budgets.Key{UserPath: "/customers/alice", Period: budgets.Hourly}); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := p1.Check("/customers/alice", now); !ok {
		t.Fatal("alice refused at process 1 after process 2 reset her")
	}
	kids, err := p1.ChildList(tk)
	if err != nil || len(kids) != 1 || kids[0].UserPath != "/customers/bob" || kids[0].Spent != 0.25 {
		t.Fatalf("children after alice's reset %+v, %v", kids, err)
	}
}

// TestRateLimitChildrenThroughRedis: the children of a template are
// listed with the counts of every process, including children this
// process never saw (found by SCAN), and a child reset clears only it.
func TestRateLimitChildrenThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	clk := &testClock{t: t0}
	tmpl := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodHour, MaxRequests: 3, PerChild: true}
	o := engineOpts{url: url, prefix: prefix, now: clk.Now}
	e1, _ := newSharedEngine(t, o, tmpl)
	e2, _ := newSharedEngine(t, o, tmpl)
	admitN(t, e1, "/customers/alice", 2)
	admitN(t, e2, "/customers/alice", 1)
	admitN(t, e2, "/customers/bob", 1) // e1 never sees bob

	kids, err := e1.Children(tmpl.Key())
	if err != nil || len(kids) != 2 {
		t.Fatalf("children %+v, %v", kids, err)
	}
	if kids[0].UserPath != "/customers/alice" || kids[0].Usage.RequestsUsed != 3 || !kids[0].Exhausted ||
		kids[1].UserPath != "/customers/bob" || kids[1].Usage.RequestsUsed != 1 || kids[1].Exhausted {
		t.Fatalf("children %+v", kids)
	}
	for _, st := range e1.Rules() {
		if st.Template && (st.Children != 2 || st.ChildrenExhausted != 1) {
			t.Fatalf("template row counts %d/%d", st.Children, st.ChildrenExhausted)
		}
	}

	if err := e1.ResetOne(limits.Key{Scope: limits.ScopeUserPath, Subject: "/customers/alice", Period: limits.PeriodHour}); err != nil {
		t.Fatal(err)
	}
	if _, rej := e2.AdmitUserPath("/customers/alice"); rej != nil {
		t.Fatalf("alice refused at process 2 after her reset: %s", rej.Reason)
	}
	kids, err = e2.Children(tmpl.Key())
	if err != nil || len(kids) != 2 || kids[0].UserPath != "/customers/alice" || kids[0].Usage.RequestsUsed != 1 ||
		kids[1].UserPath != "/customers/bob" || kids[1].Usage.RequestsUsed != 1 {
		t.Fatalf("children after the reset %+v, %v", kids, err)
	}
}
