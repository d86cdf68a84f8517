package limits

import (
	"errors"
	"strings"
	"testing"
)

func TestChildOf(t *testing.T) {
	cases := []struct {
		parent, path, child string
		ok                  bool
	}{
		{"/customers", "/customers/alice", "alice", true},
		{"/customers", "/customers/alice/app", "alice", true},
		{"/customers", "/customers", "", false},
		{"/customers", "/customers-x/alice", "", false},
		{"/", "/alice/app", "alice", true},
		{"/", "/", "", false},
	}
	for _, c := range cases {
		child, ok := childOf(c.parent, c.path)
		if child != c.child || ok != c.ok {
			t.Errorf("childOf(%q, %q) = %q, %v; want %q, %v", c.parent, c.path, child, ok, c.child, c.ok)
		}
	}
}

func TestAppendLower(t *testing.T) {
	for _, s := range []string{"OpenAI/GPT-4o", "ÄÖÜ-Modell", "plain", "bad\xffutf8"} {
		if got, want := string(appendLower(nil, s)), lowerString(s); got != want {
			t.Errorf("appendLower(%q) = %q, lowerString = %q", s, got, want)
		}
	}
	if got := lowerString("OpenAI/GPT-4o"); got != "openai/gpt-4o" {
		t.Errorf("lowerString = %q", got)
	}
}

// TestUserPathsUseTheOneNormalizer: rule subjects and admitted paths follow
// userpath.Normalize: a trailing slash and a missing leading one are
// fixed, an empty segment is refused (never collapsed onto another
// subject).
func TestUserPathsUseTheOneNormalizer(t *testing.T) {
	clk := newClock()
	tmpl := Rule{Scope: ScopeUserPath, Subject: "customers/", Period: PeriodMinute, MaxRequests: 1, PerChild: true}
	e := newEngine(t, clk, tmpl)
	if k := tmpl.Key(); k.Subject != "/customers" {
		t.Fatalf("subject normalized to %q", k.Subject)
	}
	for _, bad := range []string{"/team//app", "/team/../x", "/a b"} {
		err := e.Upsert(up(bad, PeriodMinute, 1), nil)
		if !errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), "subject:") {
			t.Errorf("Upsert(%q) = %v, want an invalid subject", bad, err)
		}
	}
	// "/customers//app" would collapse onto the child "app": refused.
	if _, rej := e.AdmitUserPath("/customers//app"); rej == nil || !strings.Contains(rej.Reason, "empty segment") {
		t.Fatalf("AdmitUserPath with an empty segment: %+v", rej)
	}
	if _, rej := e.AdmitUserPath("/customers/../app"); rej == nil || !strings.Contains(rej.Reason, `".."`) {
		t.Fatalf("AdmitUserPath with a dot segment: %+v", rej)
	}
	for p, want := range map[string]string{"/a/.hidden": "/a/.hidden", "/a.b/c": "/a.b/c", "a/": "/a", "/a/b": "/a/b"} {
		if got, err := matchPath(p); err != nil || got != want {
			t.Errorf("matchPath(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	if _, rej := e.AdmitBatch("/customers//app"); rej == nil {
		t.Fatal("AdmitBatch with an empty segment admitted")
	}
	if st := e.StatusFor("/customers//app"); st != nil {
		t.Fatalf("StatusFor with an empty segment: %+v", st)
	}
	if st := e.StatusFor("/customers/app"); len(st) != 1 || st[0].Usage.RequestsUsed != 0 {
		t.Fatalf("refused requests were charged: %+v", st)
	}
	// A missing leading and a trailing slash are normalized, not refused.
	admitN(t, e, "customers/alice/", 1)
	if allowed(e, "/customers/alice") {
		t.Fatal("customers/alice/ was not charged to /customers/alice")
	}
}

// TestUserPathsMatchWithoutCase: a rule's user path matches a request's
// without regard to case, as provider and model subjects do: the
// same counter for "/Team/App" and "/team/app", the same template child
// for "/CUSTOMERS/Carol" and "/customers/carol", and the same rule for a
// subject written "/Team" and "/team".
func TestUserPathsMatchWithoutCase(t *testing.T) {
	clk := newClock()
	tmpl := up("/customers", PeriodMinute, 1)
	tmpl.PerChild = true
	e := newEngine(t, clk, up("/Team", PeriodMinute, 1), tmpl)
	admitN(t, e, "/Team/App", 1)
	if allowed(e, "/team/app") || allowed(e, "/TEAM") {
		t.Error("the rule on /Team did not count /team/app and /TEAM together")
	}
	admitN(t, e, "/CUSTOMERS/Carol", 1)
	if allowed(e, "/customers/carol/app") {
		t.Error("/customers/carol is another child than /CUSTOMERS/Carol")
	}
	admitN(t, e, "/customers/bob", 1)
	if err := e.Upsert(up("/team", PeriodMinute, 5), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.Rules()); n != 2 {
		t.Errorf("/Team and /team are %d rules", n-1)
	}
	if st := e.StatusFor("/TEAM/x"); len(st) != 1 || st[0].Key.Subject != "/team" {
		t.Errorf("status for /TEAM/x: %+v", st)
	}
	if foldPath("/team/app") != "/team/app" || foldPath("/Équipe") != "/équipe" {
		t.Error(foldPath("/Équipe"))
	}
}
