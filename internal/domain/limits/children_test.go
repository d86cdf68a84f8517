package limits

import (
	"errors"
	"testing"
)

// TestChildrenListAndCounts: a template's children with usage come most
// used first with the exhausted flag, and the template's row counts them.
func TestChildrenListAndCounts(t *testing.T) {
	clk := newClock()
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodMinute, MaxRequests: 3, MaxTokens: 100, PerChild: true}
	conc := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodConcurrent, MaxRequests: 1, PerChild: true}
	e := newEngine(t, clk, tmpl, conc, up("/team", PeriodMinute, 10))
	admitN(t, e, "/customers/alice/app", 3) // at her cap
	admitN(t, e, "/customers/bob", 1)
	a, rej := e.AdmitUserPath("/customers/carol")
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	a.Done(150) // carol: one request, past the token cap
	held, rej := e.AdmitUserPath("/customers/dave")
	if rej != nil {
		t.Fatal(rej.Reason)
	}

	kids, err := e.Children(tmpl.Key())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path      string
		req, tok  int64
		exhausted bool
	}{
		{"/customers/alice", 3, 0, true},
		{"/customers/carol", 1, 150, true},
		{"/customers/dave", 1, 0, false}, // in flight: before bob
		{"/customers/bob", 1, 0, false},
	}
	if len(kids) != len(want) {
		t.Fatalf("children %+v", kids)
	}
	for i, w := range want {
		k := kids[i]
		if k.UserPath != w.path || k.Usage.RequestsUsed != w.req || k.Usage.TokensUsed != w.tok || k.Exhausted != w.exhausted {
			t.Fatalf("child %d: %+v, want %+v", i, k, w)
		}
	}
	// The concurrent template: dave's request is in flight and takes his
	// only slot.
	ck, err := e.Children(conc.Key())
	if err != nil || len(ck) != 1 || ck[0].UserPath != "/customers/dave" || ck[0].Usage.InFlight != 1 || !ck[0].Exhausted {
		t.Fatalf("concurrent children %+v, %v", ck, err)
	}
	if st := statusOf(t, e, tmpl.Key()); st.Children != 4 || st.ChildrenExhausted != 2 {
		t.Fatalf("template row counts %d/%d", st.Children, st.ChildrenExhausted)
	}
	if st := statusOf(t, e, conc.Key()); st.Children != 1 || st.ChildrenExhausted != 1 {
		t.Fatalf("concurrent row counts %d/%d", st.Children, st.ChildrenExhausted)
	}
	held.Done(0)
	if ck, _ := e.Children(conc.Key()); len(ck) != 0 {
		t.Fatalf("concurrent children once done %+v", ck)
	}

	if _, err := e.Children(up("/nobody", PeriodMinute, 1).Key()); !errors.Is(err, ErrRuleNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := e.Children(up("/team", PeriodMinute, 1).Key()); !errors.Is(err, ErrNotTemplate) {
		t.Fatalf("not a template: %v", err)
	}
}

// TestResetOneChild: reset-one of a child path clears that child's
// windows only, is announced to the other processes, and survives a
// restart; a grandchild or another period is not found.
func TestResetOneChild(t *testing.T) {
	clk := newClock()
	e, ms := newPersistentEngine(t, clk, 0)
	var changes []Change
	e.onChange = func(c Change) { changes = append(changes, c) }
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodHour, MaxRequests: 2, PerChild: true}
	if err := e.Upsert(tmpl, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.SetConfigRules(nil); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/customers/alice", 2)
	admitN(t, e, "/customers/bob", 2)
	e.flush(true) // both children's snapshots are stored
	if allowed(e, "/customers/alice") {
		t.Fatal("alice admitted past her cap")
	}
	changes = nil
	if err := e.ResetOne(Key{Scope: ScopeUserPath, Subject: "/Customers/Alice", Period: PeriodHour}); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || len(changes[0].ResetChildren) != 1 ||
		changes[0].ResetChildren[0] != (CounterID{Rule: tmpl.Key(), Child: "alice"}) {
		t.Fatalf("announced %+v", changes)
	}
	if allowed(e, "/customers/bob") {
		t.Fatal("bob re-admitted by alice's reset")
	}
	if kids, _ := e.Children(tmpl.Key()); len(kids) != 1 || kids[0].UserPath != "/customers/bob" {
		t.Fatalf("children after alice's reset %+v", kids)
	}

	// Her stored snapshot went with the reset: a restart keeps her at 0.
	e2 := restart(t, e, ms, clk)
	defer e2.Close()
	kids, err := e2.Children(tmpl.Key())
	if err != nil || len(kids) != 1 || kids[0].UserPath != "/customers/bob" || kids[0].Usage.RequestsUsed != 2 {
		t.Fatalf("children after restart %+v, %v", kids, err)
	}
	admitN(t, e2, "/customers/alice", 2)

	// Another process follows the announcement.
	e3 := newEngine(t, clk, tmpl)
	admitN(t, e3, "/customers/alice", 2)
	if err := e3.ApplyChange(Change{ResetChildren: []CounterID{{Rule: tmpl.Key(), Child: "alice"}}}); err != nil {
		t.Fatal(err)
	}
	if !allowed(e3, "/customers/alice") {
		t.Fatal("alice still refused after the announced reset")
	}

	for _, k := range []Key{
		{Scope: ScopeUserPath, Subject: "/customers/alice/app", Period: PeriodHour},
		{Scope: ScopeUserPath, Subject: "/customers/alice", Period: PeriodMinute},
		{Scope: ScopeUserPath, Subject: "/elsewhere/alice", Period: PeriodHour},
	} {
		if err := e2.ResetOne(k); !errors.Is(err, ErrRuleNotFound) {
			t.Fatalf("reset %s: %v", k, err)
		}
	}
}
