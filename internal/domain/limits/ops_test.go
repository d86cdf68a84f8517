package limits

import (
	"errors"
	"testing"
	"time"
)

func TestEditCapsKeepsCounters(t *testing.T) {
	clk := newClock()
	r := up("/team", PeriodMinute, 5)
	e := newEngine(t, clk, r)
	admitN(t, e, "/team", 4)
	r.MaxRequests = 4
	k := r.Key()
	if err := e.Upsert(r, &k); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, e, k); st.Usage.RequestsUsed != 4 || st.Rule.MaxRequests != 4 {
		t.Fatalf("after cap edit: %+v", st)
	}
	if allowed(e, "/team") {
		t.Fatal("new cap 4 not applied to kept counter")
	}
	// Without previous, an upsert of the same key is also a cap edit.
	r.MaxRequests = 6
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/team", 2)
	if allowed(e, "/team") {
		t.Fatal("cap 6 exceeded")
	}
}

func TestEditKeepsInFlightSlots(t *testing.T) {
	r := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 2}
	e := newEngine(t, newClock(), r)
	a, _ := e.AdmitUserPath("/team")
	r.MaxRequests = 1
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	if allowed(e, "/team") {
		t.Fatal("slot held before the edit was forgotten")
	}
	a.Done(0)
	if !allowed(e, "/team") {
		t.Fatal("slot not released")
	}
}

func TestEditKeyRestartsCounters(t *testing.T) {
	clk := newClock()
	for _, change := range []struct {
		name string
		edit func(*Rule)
	}{
		{"subject", func(r *Rule) { r.Subject = "/team2" }},
		{"period", func(r *Rule) { r.Period = PeriodHour }},
		{"custom period", func(r *Rule) { r.Period, r.PeriodSeconds = "", 60 }},
	} {
		t.Run(change.name, func(t *testing.T) {
			r := up("/team", PeriodMinute, 3)
			e := newEngine(t, clk, r)
			admitN(t, e, "/team/a", 3)
			admitN(t, e, "/team2", 3)
			prev := r.Key()
			change.edit(&r)
			if err := e.Upsert(r, &prev); err != nil {
				t.Fatal(err)
			}
			if got := len(e.Rules()); got != 1 {
				t.Fatalf("%d rules after rename, want 1", got)
			}
			if st := statusOf(t, e, r.Key()); st.Usage.RequestsUsed != 0 {
				t.Fatalf("counters not restarted: %+v", st.Usage)
			}
			if r.Subject == "/team" {
				admitN(t, e, "/team", 3)
			}
		})
	}
}

func TestEditScopeRestartsCounters(t *testing.T) {
	r := Rule{Scope: ScopeProvider, Subject: "openai", Period: PeriodMinute, MaxRequests: 2}
	e := newEngine(t, newClock(), r)
	a, _ := e.AdmitTarget("openai", "gpt")
	a.Done(0)
	prev := r.Key()
	r.Scope, r.Subject = ScopeModel, "openai/gpt"
	if err := e.Upsert(r, &prev); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, e, r.Key()); st.Usage.RequestsUsed != 0 {
		t.Fatalf("usage %+v", st.Usage)
	}
	for i := 0; i < 2; i++ {
		a, rej := e.AdmitTarget("openai", "gpt")
		if rej != nil {
			t.Fatal(rej)
		}
		a.Done(0)
	}
}

func TestUpsertErrors(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk, up("/a", PeriodMinute, 1), up("/b", PeriodMinute, 1))
	if err := e.SetConfigRules([]Rule{up("/cfg", PeriodMinute, 1)}); err != nil {
		t.Fatal(err)
	}
	ka, kb := up("/a", PeriodMinute, 1).Key(), up("/b", PeriodMinute, 1).Key()
	kc := up("/cfg", PeriodMinute, 1).Key()
	missing := up("/nope", PeriodMinute, 1).Key()
	cases := []struct {
		name string
		err  error
		run  func() error
	}{
		{"onto another rule", ErrRuleExists, func() error { return e.Upsert(up("/b", PeriodMinute, 9), &ka) }},
		{"onto another rule, reversed", ErrRuleExists, func() error { return e.Upsert(up("/a", PeriodMinute, 9), &kb) }},
		{"previous missing", ErrRuleNotFound, func() error { return e.Upsert(up("/c", PeriodMinute, 9), &missing) }},
		{"config rule", ErrRuleReadOnly, func() error { return e.Upsert(up("/cfg", PeriodMinute, 9), nil) }},
		{"from config rule", ErrRuleReadOnly, func() error { return e.Upsert(up("/c", PeriodMinute, 9), &kc) }},
		{"delete config rule", ErrRuleReadOnly, func() error { return e.Delete(kc) }},
		{"delete missing", ErrRuleNotFound, func() error { return e.Delete(missing) }},
		{"reset missing", ErrRuleNotFound, func() error { return e.ResetOne(missing) }},
		{"invalid", ErrInvalidRule, func() error { return e.Upsert(up("/x", "week", 1), nil) }},
	}
	for _, c := range cases {
		if err := c.run(); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	if n := len(e.Rules()); n != 3 {
		t.Fatalf("%d rules, want 3", n)
	}
	// Without the entitlement per_child writes are refused.
	e.SetQuotaTemplates(false)
	err := e.Upsert(Rule{Scope: ScopeUserPath, Subject: "/c", Period: PeriodMinute, MaxRequests: 1, PerChild: true}, nil)
	if !errors.Is(err, ErrQuotaTemplatesNotEntitled) {
		t.Fatalf("per_child without entitlement: %v", err)
	}
	if err := e.SetConfigRules([]Rule{{Scope: ScopeUserPath, Subject: "/c", Period: PeriodMinute, MaxRequests: 1, PerChild: true}}); !errors.Is(err, ErrQuotaTemplatesNotEntitled) {
		t.Fatalf("config per_child without entitlement: %v", err)
	}
}

func TestDeleteResetsCounters(t *testing.T) {
	r := up("/team", PeriodMinute, 2)
	e := newEngine(t, newClock(), r)
	admitN(t, e, "/team", 2)
	if err := e.Delete(r.Key()); err != nil {
		t.Fatal(err)
	}
	if len(e.Rules()) != 0 {
		t.Fatal("rule still listed")
	}
	admitN(t, e, "/team", 5)
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, e, r.Key()); st.Usage.RequestsUsed != 0 {
		t.Fatalf("recreated rule inherited counters: %+v", st.Usage)
	}
	admitN(t, e, "/team", 2)
}

func TestResetOne(t *testing.T) {
	clk := newClock()
	a := Rule{Scope: ScopeUserPath, Subject: "/a", Period: PeriodMinute, MaxRequests: 2, MaxTokens: 100}
	b := up("/b", PeriodMinute, 2)
	e := newEngine(t, clk, a, b)
	adm, _ := e.AdmitUserPath("/a")
	adm.Done(60)
	admitN(t, e, "/a", 1)
	admitN(t, e, "/b", 2)
	if err := e.ResetOne(a.Key()); err != nil {
		t.Fatal(err)
	}
	if u := statusOf(t, e, a.Key()).Usage; u.RequestsUsed != 0 || u.TokensUsed != 0 {
		t.Fatalf("a not reset: %+v", u)
	}
	if u := statusOf(t, e, b.Key()).Usage; u.RequestsUsed != 2 {
		t.Fatalf("b touched by reset of a: %+v", u)
	}
	// The previous window is cleared too.
	clk.Add(time.Minute)
	admitN(t, e, "/a", 2)
	if allowed(e, "/b") {
		t.Fatal("b's previous window lost")
	}
}

func TestResetAll(t *testing.T) {
	clk := newClock()
	rules := []Rule{up("/a", PeriodMinute, 1), up("/b", PeriodHour, 1), {Scope: ScopeModel, Subject: "m", Period: PeriodDay, MaxRequests: 1}}
	e := newEngine(t, clk, rules...)
	if err := e.SetConfigRules([]Rule{up("/c", PeriodMinute, 1)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		admitN(t, e, p, 1)
	}
	adm, _ := e.AdmitTarget("x", "m")
	adm.Done(0)
	e.ResetAll()
	for _, st := range e.Rules() {
		if st.Usage.RequestsUsed != 0 {
			t.Fatalf("%s not reset: %+v", st.Key, st.Usage)
		}
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		admitN(t, e, p, 1)
	}
}

func TestResetAndDeleteTemplateClearsChildren(t *testing.T) {
	clk := newClock()
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodMinute, MaxRequests: 1, PerChild: true}
	conc := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodConcurrent, MaxRequests: 1, PerChild: true}
	e := newEngine(t, clk, tmpl, conc)
	held, rej := e.AdmitUserPath("/customers/alice") // holds alice's slot
	if rej != nil {
		t.Fatal(rej)
	}
	admitN(t, e, "/customers/bob", 1)
	if allowed(e, "/customers/bob") {
		t.Fatal("bob not limited")
	}

	if err := e.ResetOne(tmpl.Key()); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/customers/bob", 1)
	// Reset of the concurrency template keeps alice's active slot.
	if err := e.ResetOne(conc.Key()); err != nil {
		t.Fatal(err)
	}
	if allowed(e, "/customers/alice/x") {
		t.Fatal("active slot dropped by reset")
	}
	held.Done(0)

	// Delete and recreate: every child starts fresh.
	clk.Add(time.Second)
	admitN(t, e, "/customers/carol", 1)
	if err := e.Delete(tmpl.Key()); err != nil {
		t.Fatal(err)
	}
	if err := e.Upsert(tmpl, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"alice", "bob", "carol"} {
		admitN(t, e, "/customers/"+c, 1)
	}
}

func TestSwitchPerChildRestartsCounters(t *testing.T) {
	r := up("/customers", PeriodMinute, 2)
	e := newEngine(t, newClock(), r)
	admitN(t, e, "/customers/alice", 2)
	r.PerChild = true
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	admitN(t, e, "/customers/alice", 2)
	admitN(t, e, "/customers/bob", 2)
}

func TestConfigRules(t *testing.T) {
	clk := newClock()
	manual := up("/team", PeriodMinute, 10)
	e := newEngine(t, clk, manual)
	cfg := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxRequests: 2, Source: SourceManual}
	other := Rule{Scope: ScopeProvider, Subject: "OpenAI", Period: PeriodHour, MaxRequests: 100}
	if err := e.SetConfigRules([]Rule{cfg, other}); err != nil {
		t.Fatal(err)
	}
	// The config rule shadows the manual one with the same key.
	st := statusOf(t, e, cfg.Key())
	if st.Rule.Source != SourceConfig || st.Rule.MaxRequests != 2 {
		t.Fatalf("config rule not installed: %+v", st)
	}
	admitN(t, e, "/team", 2)
	if allowed(e, "/team") {
		t.Fatal("config cap not applied")
	}
	// Reload with changed caps keeps counters.
	cfg.MaxRequests = 3
	if err := e.SetConfigRules([]Rule{cfg, other}); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, e, cfg.Key()); st.Usage.RequestsUsed != 2 {
		t.Fatalf("reload lost counters: %+v", st.Usage)
	}
	// Reload without the rule: the manual rule reappears (counters kept,
	// same key).
	if err := e.SetConfigRules(nil); err != nil {
		t.Fatal(err)
	}
	st = statusOf(t, e, manual.Key())
	if st.Rule.Source != SourceManual || st.Rule.MaxRequests != 10 {
		t.Fatalf("manual rule not back: %+v", st)
	}
	if len(e.Rules()) != 1 {
		t.Fatalf("rules: %+v", e.Rules())
	}
	// Duplicate keys in one config are an error.
	if err := e.SetConfigRules([]Rule{cfg, cfg}); !errors.Is(err, ErrInvalidRule) {
		t.Fatalf("duplicate config rules: %v", err)
	}
}

func TestRulesOrder(t *testing.T) {
	e := newEngine(t, newClock(),
		Rule{Scope: ScopeModel, Subject: "m", Period: PeriodMinute, MaxRequests: 1},
		Rule{Scope: ScopeProvider, Subject: "p", Period: PeriodMinute, MaxRequests: 1},
		up("/b", PeriodConcurrent, 1),
		up("/b", PeriodDay, 1),
		Rule{Scope: ScopeUserPath, Subject: "/b", PeriodSeconds: 30, MaxRequests: 1},
		up("/a", PeriodMinute, 1),
	)
	var got []string
	for _, s := range e.Rules() {
		got = append(got, string(s.Key.Scope)+" "+s.Key.Subject+" "+s.Key.PeriodLabel())
	}
	want := []string{"user_path /a minute", "user_path /b 30s", "user_path /b day", "user_path /b concurrent", "provider p minute", "model m minute"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}
