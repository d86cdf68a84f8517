package vmodels

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var testProviders = map[string]string{"a": "openai", "b": "openai", "c": "anthropic"}

// down marks provider/model pairs unavailable.
type down map[string]bool

func (d down) Available(p, m string) bool { return !d[p+"/"+m] }

func open(t testing.TB, managed List) *Service {
	t.Helper()
	s, warns, err := Open(Options{Managed: managed, Providers: testProviders})
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	return s
}

func TestRoundRobinWeights(t *testing.T) {
	s := open(t, List{{Source: "fast", Targets: []Target{{Provider: "a", Model: "x", Weight: 3}, {Provider: "b", Model: "y"}}}})
	counts := map[string]int{}
	for range 1000 {
		c, ok, err := s.Resolve("fast", "/", "", nil)
		if !ok || err != nil {
			t.Fatal(ok, err)
		}
		counts[c.Provider]++
	}
	if counts["a"] != 750 || counts["b"] != 250 {
		t.Fatalf("counts %v, want 750/250", counts)
	}
	if _, ok, _ := s.Resolve("gpt-4o", "/", "", nil); ok {
		t.Fatal("a plain model resolved as an alias")
	}
}

func TestCostPicksCheapestAvailable(t *testing.T) {
	s := open(t, List{{Source: "cheap", Strategy: StrategyCost, Targets: []Target{
		{Provider: "a", Model: "gpt-4o"}, {Provider: "b", Model: "gpt-4o-mini"}, {Provider: "a", Model: "unpriced-model"}}}})
	c, _, _ := s.Resolve("cheap", "/", "", nil)
	if c.Model != "gpt-4o-mini" {
		t.Fatalf("picked %+v", c)
	}
	c, _, _ = s.Resolve("cheap", "/", "", down{"b/gpt-4o-mini": true})
	if c.Model != "gpt-4o" {
		t.Fatalf("with the cheapest down picked %+v", c)
	}
}

func TestUnavailableTargetsSkippedAndFirstWhenAllDown(t *testing.T) {
	s := open(t, List{{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}})
	for range 10 {
		c, _, _ := s.Resolve("m", "/", "", down{"a/x": true})
		if c.Provider != "b" {
			t.Fatalf("saturated target picked: %+v", c)
		}
	}
	for range 4 {
		c, _, _ := s.Resolve("m", "/", "", down{"a/x": true, "b/y": true})
		if c.Provider != "a" {
			t.Fatalf("all down: want the first target, got %+v", c)
		}
	}
}

func TestSessionAffinity(t *testing.T) {
	s := open(t, List{
		{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}},
		{Source: "off", SessionAffinity: new(bool), Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}},
	})
	first, _, _ := s.Resolve("m", "/u", "sess-1", nil)
	for range 20 {
		c, _, _ := s.Resolve("m", "/u", "sess-1", nil)
		if c != first {
			t.Fatalf("session moved from %+v to %+v", first, c)
		}
	}
	// While the pinned target is saturated the session moves, and stays.
	c, _, _ := s.Resolve("m", "/u", "sess-1", down{first.Provider + "/" + first.Model: true})
	if c == first {
		t.Fatal("stayed on a saturated target")
	}
	seen := map[string]bool{}
	for range 4 {
		c, _, _ := s.Resolve("off", "/u", "sess-1", nil)
		seen[c.Provider] = true
	}
	if len(seen) != 2 {
		t.Fatal("session_affinity false still pinned")
	}
}

func TestPinsExpireAndAreBounded(t *testing.T) {
	now := time.Unix(0, 0)
	p := newPins(10, time.Hour, func() time.Time { return now })
	p.set("k", 1, 1)
	if i, ok := p.get("k", 1); !ok || i != 1 {
		t.Fatal("pin lost")
	}
	if _, ok := p.get("k", 2); ok {
		t.Fatal("pin of an older snapshot applied")
	}
	now = now.Add(2 * time.Hour)
	if _, ok := p.get("k", 1); ok {
		t.Fatal("idle pin still applied")
	}
	for i := range 100 {
		p.set(fmt.Sprint(i), 1, 0)
	}
	if n := p.len(); n > 10 {
		t.Fatalf("%d pins held, bound 10", n)
	}
}

func TestChains(t *testing.T) {
	s := open(t, List{
		{Source: "outer", Targets: []Target{{Provider: "a", Model: "inner"}}},
		{Source: "a/inner", Targets: []Target{{Provider: "c", Model: "claude"}}},
	})
	c, _, _ := s.Resolve("outer", "/", "", nil)
	if c.Provider != "c" || c.Model != "claude" {
		t.Fatalf("chain resolved to %+v", c)
	}
	err := Check(List{
		{Source: "a/x", Targets: []Target{{Provider: "b", Model: "y"}}},
		{Source: "b/y", Targets: []Target{{Provider: "a", Model: "x"}}},
	}, nil, testProviders)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle: %v", err)
	}
	var deep List
	for i := range MaxChainDepth + 1 {
		deep = append(deep, VirtualModel{Source: fmt.Sprintf("a/m%d", i), Targets: []Target{{Provider: "a", Model: fmt.Sprintf("m%d", i+1)}}})
	}
	if err := Check(deep, nil, testProviders); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Fatalf("depth: %v", err)
	}
	err = Check(List{{Source: "x", Targets: []Target{{Provider: "opnai", Model: "m"}}}}, nil, testProviders)
	if err == nil || !strings.Contains(err.Error(), `unknown provider "opnai" (configured: a, b, c)`) {
		t.Fatalf("typo: %v", err)
	}
}

func TestAccessPolicies(t *testing.T) {
	no := false
	s := open(t, List{
		{Source: "a/*", UserPaths: []string{"/team"}},
		{Source: "a/open"},
		{Source: "b/off", Enabled: &no},
		{Source: "alias", UserPaths: []string{"/team"}, Targets: []Target{{Provider: "b", Model: "y"}}},
	})
	for _, c := range []struct {
		path, prov, model string
		ok                bool
	}{
		{"/team", "a", "x", true}, {"/team/app", "a", "x", true}, {"/other", "a", "x", false},
		{"/team-alpha", "a", "x", false}, {"/other", "a", "open", true}, {"/team", "b", "off", false},
		{"/other", "b", "y", true},
	} {
		if got := s.Allowed(c.path, c.prov, c.model); got != c.ok {
			t.Errorf("%s %s/%s: %v, want %v", c.path, c.prov, c.model, got, c.ok)
		}
	}
	if _, _, err := s.Resolve("alias", "/other", "", nil); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("alias for /team used by /other: %v", err)
	}
	if len(s.Aliases("/other")) != 0 || len(s.Aliases("/team")) != 1 {
		t.Fatal("alias listing ignores user paths")
	}
}

func TestAdminWritesAndManagedRows(t *testing.T) {
	s := open(t, List{{Source: "managed", Targets: []Target{{Provider: "a", Model: "x"}}}})
	if _, err := s.Put(VirtualModel{Source: "managed"}, ""); !errors.Is(err, ErrManaged) {
		t.Fatalf("managed write: %v", err)
	}
	if err := s.Delete("managed"); !errors.Is(err, ErrManaged) {
		t.Fatalf("managed delete: %v", err)
	}
	if _, err := s.Put(VirtualModel{Source: "n", Targets: []Target{{Provider: "zz", Model: "x"}}}, ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown provider: %v", err)
	}
	r, err := s.Put(VirtualModel{Source: "n", Targets: []Target{{Provider: "a", Model: "x"}}}, "")
	if err != nil || r.CreatedAt == nil || r.Managed {
		t.Fatal(r, err)
	}
	if _, err := s.Put(VirtualModel{Source: "n2", Targets: []Target{{Provider: "b", Model: "y"}}}, "n"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Resolve("n", "/", "", nil); ok {
		t.Fatal("renamed row still resolves under its old source")
	}
	if c, ok, _ := s.Resolve("n2", "/", "", nil); !ok || c.Provider != "b" {
		t.Fatal("renamed row does not resolve")
	}
	if err := s.Delete("n2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("n2"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if len(s.List()) != 1 || !s.List()[0].Managed {
		t.Fatalf("list %+v", s.List())
	}
}

func TestFailoverRoutes(t *testing.T) {
	s, _, err := Open(Options{Providers: testProviders, ManagedFailover: Failover{"gpt-4o": {"b/gpt-4o"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutFailover("gpt-4o", []string{"c/x"}); !errors.Is(err, ErrManaged) {
		t.Fatal(err)
	}
	if _, err := s.PutFailover("a/m", []string{"b/m", "c/m"}); err != nil {
		t.Fatal(err)
	}
	if got := s.FailoverTargets("alias", "a", "m"); len(got) != 2 || got[0] != "b/m" {
		t.Fatalf("by provider/model: %v", got)
	}
	if got := s.FailoverTargets("x", "a", "gpt-4o"); len(got) != 1 {
		t.Fatalf("by model: %v", got)
	}
	if err := s.DeleteFailover("a/m"); err != nil || len(s.FailoverRoutes()) != 1 {
		t.Fatal(err, s.FailoverRoutes())
	}
}

// TestManagedRowsCarryLoadTime: a managed row, never stored, is listed
// with created_at and updated_at set to when its configuration was
// loaded, so every listed row has both timestamps.
func TestManagedRowsCarryLoadTime(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s, err := New(Options{Managed: List{{Source: "managed", Targets: []Target{{Provider: "a", Model: "x"}}}},
		Providers: testProviders, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	rows := s.List()
	if len(rows) != 1 || !rows[0].Managed || rows[0].CreatedAt == nil || !rows[0].CreatedAt.Equal(at) ||
		rows[0].UpdatedAt == nil || !rows[0].UpdatedAt.Equal(at) {
		t.Fatalf("managed row %+v", rows)
	}
}
