package limits

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNoRulesAdmitsEverything(t *testing.T) {
	e := newEngine(t, newClock())
	a, rej := e.AdmitUserPath("/anyone")
	if rej != nil {
		t.Fatal(rej)
	}
	if h := a.Headers(); h.HasRequests || h.HasTokens {
		t.Fatalf("headers without rules: %+v", h)
	}
	a.Done(10)
	if _, ok := e.TargetAvailable("openai", "gpt-4o"); !ok {
		t.Fatal("target unavailable without rules")
	}
}

func TestPathMatching(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk, up("/team", PeriodMinute, 2))
	admitN(t, e, "/team", 1)
	admitN(t, e, "/team/app/deep", 1)
	if allowed(e, "/team/other") {
		t.Fatal("descendant not limited by /team")
	}
	if allowed(e, "/team") {
		t.Fatal("/team itself not limited")
	}
	// /team-alpha and / are not covered by /team.
	admitN(t, e, "/team-alpha", 5)
	admitN(t, e, "/", 5)
	admitN(t, e, "/teams", 5)
	// Non-normalized input is normalized.
	if allowed(e, "/team/") || allowed(e, "team/x") {
		t.Fatal("unnormalized path escaped the rule")
	}
}

func TestRootRuleMatchesEverything(t *testing.T) {
	e := newEngine(t, newClock(), up("/", PeriodMinute, 3))
	admitN(t, e, "/a", 1)
	admitN(t, e, "/b/c", 1)
	admitN(t, e, "/", 1)
	if allowed(e, "/zzz") {
		t.Fatal("root rule did not limit all traffic")
	}
}

func TestPerChildPartitions(t *testing.T) {
	clk := newClock()
	tmpl := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodMinute, MaxRequests: 2, PerChild: true}
	e := newEngine(t, clk, tmpl)

	// Children are independent; deeper paths share their child's counter.
	admitN(t, e, "/customers/alice", 1)
	admitN(t, e, "/customers/alice/app", 1)
	if allowed(e, "/customers/alice/other") {
		t.Fatal("alice's third request admitted")
	}
	admitN(t, e, "/customers/bob", 2)
	if allowed(e, "/customers/bob") {
		t.Fatal("bob's third request admitted")
	}
	// The template path itself and siblings of the template are not matched.
	admitN(t, e, "/customers", 10)
	admitN(t, e, "/customers-x/alice", 10)

	// Admin list: template without aggregate counter.
	st := statusOf(t, e, tmpl.Key())
	if !st.Template || st.Usage != (Usage{}) {
		t.Fatalf("admin list shows template usage: %+v", st)
	}
	// StatusFor: the caller's child counters.
	sf := e.StatusFor("/customers/alice/app")
	if len(sf) != 1 || sf[0].EffectiveSubject != "/customers/alice" || sf[0].Usage.RequestsUsed != 2 || !sf[0].Template {
		t.Fatalf("StatusFor alice = %+v", sf)
	}
	if sf := e.StatusFor("/customers/carol"); len(sf) != 1 || sf[0].Usage.RequestsUsed != 0 || sf[0].Usage.WindowEnd.IsZero() {
		t.Fatalf("StatusFor unseen child = %+v", sf)
	}
	if sf := e.StatusFor("/customers"); len(sf) != 0 {
		t.Fatalf("StatusFor template path = %+v", sf)
	}
	// StatusFor creates no partition.
	if n := e.groups[tmpl.Key()].tmpl.len(); n != 2 {
		t.Fatalf("%d partitions, want 2 (alice, bob)", n)
	}
}

func TestRootTemplate(t *testing.T) {
	e := newEngine(t, newClock(), Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 1, PerChild: true})
	admitN(t, e, "/a/x", 1)
	admitN(t, e, "/b", 1)
	if allowed(e, "/a") {
		t.Fatal("child /a not limited")
	}
	admitN(t, e, "/", 3) // the template path itself
}

func TestStatusForListsCoveringRules(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk, up("/", PeriodHour, 100), up("/team", PeriodMinute, 10), up("/team-alpha", PeriodMinute, 10), up("/team/app/x", PeriodMinute, 10))
	admitN(t, e, "/team/app", 3)
	sf := e.StatusFor("/team/app")
	if len(sf) != 2 || sf[0].Key.Subject != "/" || sf[1].Key.Subject != "/team" {
		t.Fatalf("StatusFor = %+v", sf)
	}
	if sf[1].Usage.RequestsUsed != 3 || !sf[1].Usage.WindowStart.Equal(t0) || !sf[1].Usage.WindowEnd.Equal(t0.Add(time.Minute)) {
		t.Fatalf("usage = %+v", sf[1].Usage)
	}
}

func TestFirstExhaustedRejectsAndNothingConsumed(t *testing.T) {
	clk := newClock()
	root := up("/", PeriodMinute, 100)
	conc := Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 100}
	team := up("/team", PeriodMinute, 2)
	app := up("/team/app", PeriodHour, 50)
	e := newEngine(t, clk, root, conc, team, app)
	admitN(t, e, "/team/app", 2)
	for i := 0; i < 5; i++ {
		_, rej := e.AdmitUserPath("/team/app")
		if rej == nil {
			t.Fatal("admitted past /team's cap")
		}
		if rej.Rule != team.Key() {
			t.Fatalf("rejected by %s, want %s", rej.Rule, team.Key())
		}
		if !strings.Contains(rej.Reason, `"/team"`) || !strings.Contains(rej.Reason, "2 requests per minute") {
			t.Fatalf("reason %q", rej.Reason)
		}
	}
	// Earlier and later rules were not charged by the rejections, and no
	// concurrency slot leaked.
	if u := statusOf(t, e, root.Key()).Usage.RequestsUsed; u != 2 {
		t.Fatalf("root used %d, want 2", u)
	}
	if u := statusOf(t, e, app.Key()).Usage.RequestsUsed; u != 2 {
		t.Fatalf("app used %d, want 2", u)
	}
	if f := statusOf(t, e, conc.Key()).Usage.InFlight; f != 0 {
		t.Fatalf("in flight %d after rejections, want 0", f)
	}
}

func TestFirstExhaustedIsInMatchOrder(t *testing.T) {
	clk := newClock()
	// The deeper rule is created first (lower counter id) but the root
	// rule comes first in matching order.
	e := newEngine(t, clk, up("/team", PeriodMinute, 1), up("/", PeriodMinute, 1))
	admitN(t, e, "/team", 1)
	_, rej := e.AdmitUserPath("/team")
	if rej == nil || rej.Rule.Subject != "/" {
		t.Fatalf("rejection %+v, want the root rule", rej)
	}
}

func TestRetryAfterThroughEngine(t *testing.T) {
	clk := newClock()
	rule := up("/team", PeriodMinute, 10)
	e := newEngine(t, clk, rule)

	// 10 requests at the window start, retry at +30s: past the boundary,
	// 30s + 6s.
	admitN(t, e, "/team", 10)
	clk.Add(30 * time.Second)
	_, rej := e.AdmitUserPath("/team")
	if rej == nil || rej.RetryAfter != 36*time.Second || rej.RetryAfterSeconds() != 36 {
		t.Fatalf("rejection %+v, want Retry-After 36s", rej)
	}
	clk.Add(35 * time.Second)
	if allowed(e, "/team") {
		t.Fatal("admitted 1s before Retry-After")
	}
	clk.Add(time.Second) // t0+66s: prev=10 fading: 10*54/60 = 9
	admitN(t, e, "/team", 1)

	// Now cur=1, prev=10 at 6s into the window: used = 1+9 = 10.
	_, rej = e.AdmitUserPath("/team")
	if rej == nil {
		t.Fatal("admitted at the cap")
	}
	// Need ceil(10*(60-t)/60) <= 8 -> t >= 12s: wait 6s.
	if rej.RetryAfter != 6*time.Second {
		t.Fatalf("Retry-After %v, want 6s (within the window)", rej.RetryAfter)
	}
	// Rounded up: half a second later the wait is 5.5s -> 6s.
	clk.Add(500 * time.Millisecond)
	if _, rej = e.AdmitUserPath("/team"); rej == nil || rej.RetryAfter != 6*time.Second {
		t.Fatalf("rejection %+v, want Retry-After rounded up to 6s", rej)
	}
	// At least one second.
	clk.Add(5400 * time.Millisecond)
	if _, rej = e.AdmitUserPath("/team"); rej == nil || rej.RetryAfter != time.Second {
		t.Fatalf("rejection %+v, want Retry-After 1s", rej)
	}
	clk.Add(100 * time.Millisecond)
	admitN(t, e, "/team", 1)
}

func TestRetryAfterIsMaxOverExhaustedRules(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk, up("/", PeriodMinute, 1), up("/team", PeriodHour, 1))
	admitN(t, e, "/team", 1)
	_, rej := e.AdmitUserPath("/team")
	// The minute rule frees up after 60s, the hour rule only after 3600s.
	if rej == nil || rej.Rule.Subject != "/" || rej.RetryAfter != 2*time.Hour {
		t.Fatalf("rejection %+v, want first rule / and Retry-After 2h (hour rule: until its estimate drops below 1)", rej)
	}
}

func TestTokensChargedAtDone(t *testing.T) {
	clk := newClock()
	r := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxTokens: 1000}
	e := newEngine(t, clk, r)
	a, rej := e.AdmitUserPath("/team")
	if rej != nil {
		t.Fatal(rej)
	}
	// A second request admitted while the first is in flight: tokens are
	// charged only at Done.
	b, rej := e.AdmitUserPath("/team/x")
	if rej != nil {
		t.Fatal(rej)
	}
	a.Done(700)
	a.Done(700) // idempotent
	if u := statusOf(t, e, r.Key()).Usage; u.TokensUsed != 700 || u.RequestsUsed != 2 {
		t.Fatalf("usage %+v, want 700 tokens, 2 requests", u)
	}
	b.Done(800) // overshoot is allowed
	if u := statusOf(t, e, r.Key()).Usage.TokensUsed; u != 1500 {
		t.Fatalf("tokens %d, want 1500", u)
	}
	_, rej = e.AdmitUserPath("/team")
	if rej == nil || !strings.Contains(rej.Reason, "tokens") {
		t.Fatalf("rejection %+v, want token cap", rej)
	}
	// Next window at 0s: 1500 fading; need ceil(1500*(60-t)/60) <= 999 -> t >= 20.04s.
	if rej.RetryAfter != 81*time.Second {
		t.Fatalf("Retry-After %v, want 81s", rej.RetryAfter)
	}
	if !rej.Headers.HasTokens || rej.Headers.RemainingTokens != 0 || rej.Headers.LimitTokens != 1000 {
		t.Fatalf("headers %+v", rej.Headers)
	}
}

func TestTokensNotEnforced(t *testing.T) {
	clk := newClock()
	e, err := New(Options{Now: clk.Now, TokensEnforced: false})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxTokens: 10, MaxRequests: 3}
	if err := e.Upsert(r, nil); err != nil {
		t.Fatal(err)
	}
	a, _ := e.AdmitUserPath("/team")
	a.Done(1000)
	a2, rej := e.AdmitUserPath("/team")
	if rej != nil {
		t.Fatalf("token cap enforced without usage tracking: %s", rej.Reason)
	}
	if h := a2.Headers(); h.HasTokens || !h.HasRequests {
		t.Fatalf("headers %+v: token headers advertised while not enforced", h)
	}
	a2.Done(0)
	admitN(t, e, "/team", 1)
	if allowed(e, "/team") {
		t.Fatal("request cap not enforced")
	}
	// Switching enforcement on applies the token cap.
	e.SetTokensEnforced(true)
	clk.Add(110 * time.Second) // requests: ceil(3*10/60) = 1 of 3; tokens: 167 of 10
	_, rej = e.AdmitUserPath("/team")
	if rej == nil || !strings.Contains(rej.Reason, "tokens") {
		t.Fatalf("rejection %+v, want token cap", rej)
	}
}

func TestHeadersMostConstrained(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk,
		Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 100, MaxTokens: 500},
		Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodHour, MaxRequests: 5, MaxTokens: 100000},
		Rule{Scope: ScopeUserPath, Subject: "/team", Period: PeriodConcurrent, MaxRequests: 1},
	)
	clk.Add(20 * time.Second)
	a, rej := e.AdmitUserPath("/team/app")
	if rej != nil {
		t.Fatal(rej)
	}
	h := a.Headers()
	want := Headers{
		LimitRequests: 5, RemainingRequests: 4, ResetRequests: 2*time.Hour - 20*time.Second,
		LimitTokens: 500, RemainingTokens: 500, ResetTokens: 0,
		HasRequests: true, HasTokens: true,
		LimitConcurrency: 1, RemainingConcurrency: 0, HasConcurrency: true,
	}
	if h != want {
		t.Fatalf("headers\n got %+v\nwant %+v", h, want)
	}
	a.Done(0)
	hdr := http.Header{}
	h.Apply(hdr)
	for name, v := range map[string]string{
		"x-ratelimit-limit-requests": "5", "x-ratelimit-remaining-requests": "4", "x-ratelimit-reset-requests": "7180",
		"x-ratelimit-limit-tokens": "500", "x-ratelimit-remaining-tokens": "500", "x-ratelimit-reset-tokens": "0",
		"x-ratelimit-limit-concurrency": "1", "x-ratelimit-remaining-concurrency": "0",
	} {
		if got := hdr.Get(name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
	// Tie on remaining requests: the smaller cap wins.
	var th Headers
	th.addConcurrency(4, 1)
	th.addConcurrency(2, 0)
	th.addConcurrency(8, 5)
	if th.LimitConcurrency != 2 || th.RemainingConcurrency != 2 {
		t.Fatalf("concurrency, fewest free slots then smaller cap: %+v", th)
	}
	th.addRequests(10, window{cur: 5, period: int64(time.Minute)})
	th.addRequests(5, window{cur: 0, period: int64(time.Minute)})
	if th.LimitRequests != 5 {
		t.Fatalf("tie: %+v", th)
	}
}

func TestTargetRules(t *testing.T) {
	clk := newClock()
	e := newEngine(t, clk,
		Rule{Scope: ScopeProvider, Subject: "OpenAI", Period: PeriodMinute, MaxRequests: 3},
		Rule{Scope: ScopeModel, Subject: "openai/GPT-4o", Period: PeriodMinute, MaxRequests: 2},
		Rule{Scope: ScopeModel, Subject: "claude", Period: PeriodMinute, MaxRequests: 1},
	)
	for i := 0; i < 2; i++ {
		if _, ok := e.TargetAvailable("openai", "gpt-4o"); !ok {
			t.Fatal("unavailable too early")
		}
		a, rej := e.AdmitTarget("OPENAI", "gpt-4O")
		if rej != nil {
			t.Fatal(rej)
		}
		a.Done(10)
	}
	// The model rule on openai is exhausted; TargetAvailable has no side
	// effects and reports the wait.
	for i := 0; i < 3; i++ {
		ra, ok := e.TargetAvailable("openai", "gpt-4o")
		if ok || ra != 90*time.Second {
			t.Fatalf("TargetAvailable = %v, %v; want 90s, false", ra, ok)
		}
	}
	_, rej := e.AdmitTarget("openai", "gpt-4o")
	if rej == nil || rej.Rule.Scope != ScopeModel {
		t.Fatalf("rejection %+v, want model rule", rej)
	}
	// Another model on the same provider uses the provider's last slot.
	a, rej := e.AdmitTarget("openai", "gpt-4o-mini")
	if rej != nil {
		t.Fatal(rej)
	}
	a.Done(0)
	if _, ok := e.TargetAvailable("openai", "gpt-4o-mini"); ok {
		t.Fatal("provider cap not applied")
	}
	// Bare model subjects match on any provider.
	a, rej = e.AdmitTarget("anthropic", "Claude")
	if rej != nil {
		t.Fatal(rej)
	}
	a.Done(0)
	if _, ok := e.TargetAvailable("bedrock", "claude"); ok {
		t.Fatal("bare model rule not applied on another provider")
	}
	// User-path admissions ignore target rules and vice versa.
	admitN(t, e, "/", 5)
}

func TestDoneZeroValueAndNil(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Done panicked: %v", r)
		}
	}()
	var a Admission
	a.Done(5)
	if !a.done {
		t.Fatal("Done left the zero-value admission open")
	}
	a.Done(5)
	var p *Admission
	p.Done(1)
}
