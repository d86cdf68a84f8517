package providers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// slowLister fails or hangs its listing to show the registry isolates it.
type slowLister struct {
	name  string
	delay time.Duration
	err   error
	ids   []string
}

func (s *slowLister) Name() string            { return s.name }
func (s *slowLister) Type() string            { return "openai" }
func (s *slowLister) StreamUsageOption() bool { return true }
func (s *slowLister) Shape() Shape            { return ShapeChat }
func (s *slowLister) Supports(Endpoint) bool  { return true }
func (s *slowLister) Do(context.Context, Endpoint, string, []byte) (*http.Response, error) {
	return nil, nil
}
func (s *slowLister) ListModels(ctx context.Context) ([]Model, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.err != nil {
		return nil, s.err
	}
	var ms []Model
	for _, id := range s.ids {
		ms = append(ms, Model{ID: id})
	}
	return ms, nil
}

func TestRegistryIsolatesFailingProviders(t *testing.T) {
	hang := &slowLister{name: "hang", delay: time.Hour}
	fail := &slowLister{name: "fail", err: io.ErrUnexpectedEOF}
	good := &slowLister{name: "good", ids: []string{"g1", "shared"}}
	first := &slowLister{name: "first", ids: []string{"shared"}}
	r := NewRegistry([]Entry{
		{Provider: first},
		{Provider: hang, Models: []string{"h1"}},
		{Provider: fail, Models: []string{"f1"}},
		{Provider: good},
		{Provider: &slowLister{name: "allow"}, Models: []string{"a1"}, Allowlist: true},
	}, RegistryOptions{Timeout: 200 * time.Millisecond})
	// Configured and allowlisted models are served before Start.
	if p, _, err := r.Resolve(context.Background(), "a1"); err != nil || p.Name() != "allow" {
		t.Fatalf("allowlist before start: %v %v", p, err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.Start(ctx) // the failing listings retry until the test ends
	for _, c := range []struct{ model, provider, upstream string }{
		{"g1", "good", "g1"}, {"h1", "hang", "h1"}, {"f1", "fail", "f1"}, {"shared", "first", "shared"},
		{"good/shared", "good", "shared"}, {"hang/anything", "hang", "anything"},
	} {
		p, m, err := r.Resolve(ctx, c.model)
		if err != nil || p.Name() != c.provider || m != c.upstream {
			t.Fatalf("%s: got %v %q %v", c.model, p, m, err)
		}
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("a hanging listing held up resolution beyond its timeout")
	}
	if _, _, err := r.Resolve(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestResolveSlashedIDs(t *testing.T) {
	openai := &slowLister{name: "openai", ids: []string{"gpt-4o"}}
	groq := &slowLister{name: "groq", ids: []string{"openai/gpt-oss-20b", "groq/compound", "llama"}}
	r := NewRegistry([]Entry{{Provider: openai}, {Provider: groq}}, RegistryOptions{})
	r.Start(context.Background())
	<-r.Ready()
	for _, c := range []struct{ model, provider, upstream, selector string }{
		{"openai/gpt-oss-20b", "groq", "openai/gpt-oss-20b", "openai/gpt-oss-20b"}, // groq's own id, not openai's
		{"groq/compound", "groq", "groq/compound", "groq/compound"},
		{"openai/gpt-4o", "openai", "gpt-4o", "gpt-4o"},              // openai lists gpt-4o
		{"openai/unlisted", "openai", "unlisted", "openai/unlisted"}, // unlisted model of a named provider
		{"groq/llama", "groq", "llama", "llama"},
	} {
		p, m, err := r.Resolve(context.Background(), c.model)
		if err != nil || p.Name() != c.provider || m != c.upstream {
			t.Errorf("%s: got %v %q %v", c.model, p, m, err)
			continue
		}
		if sel := r.Selector(p, m); sel != c.selector {
			t.Errorf("%s: selector %q, want %q", c.model, sel, c.selector)
		}
	}
}

func TestAllowlistRefusesUnlistedPrefixedModels(t *testing.T) {
	open := &slowLister{name: "open", ids: []string{"x"}}
	closed := &slowLister{name: "closed"}
	r := NewRegistry([]Entry{{Provider: open}, {Provider: closed, Models: []string{"only"}, Allowlist: true}}, RegistryOptions{})
	r.Start(context.Background())
	<-r.Ready()
	if p, m, err := r.Resolve(context.Background(), "closed/only"); err != nil || p.Name() != "closed" || m != "only" {
		t.Fatalf("allowlisted model: %v %q %v", p, m, err)
	}
	if _, _, err := r.Resolve(context.Background(), "closed/other"); err == nil {
		t.Fatal("a model outside the allowlist was routed by prefix")
	}
	if p, m, err := r.Resolve(context.Background(), "open/unlisted"); err != nil || p.Name() != "open" || m != "unlisted" {
		t.Fatalf("unlisted model of an open provider: %v %q %v", p, m, err)
	}
}

// TestListsKnowsAProviderListOnlyFromItsUpstreamOrAllowlist: an
// allowlisted provider's list is known from the start; another's only
// once an upstream listing named models: not while the configured models
// stand in for a listing that has not come, failed or was empty. A later
// failure keeps the list known.
func TestListsKnowsAProviderListOnlyFromItsUpstreamOrAllowlist(t *testing.T) {
	l := &scriptedLister{slowLister: slowLister{name: "open"}, script: [][]string{{}, nil, {"a"}, nil}}
	closed := &slowLister{name: "closed"}
	entries := []Entry{{Provider: l, Models: []string{"configured"}}, {Provider: closed, Models: []string{"only"}, Allowlist: true}}
	r := NewRegistry(entries, RegistryOptions{})
	check := func(step, provider, model string, listed, known bool) {
		t.Helper()
		if gl, gk := r.Lists(provider, model); gl != listed || gk != known {
			t.Errorf("%s: Lists(%s, %s) = %v, %v; want %v, %v", step, provider, model, gl, gk, listed, known)
		}
	}
	check("allowlist", "closed", "only", true, true)
	check("allowlist", "closed", "other", false, true)
	check("unknown provider", "nope", "a", false, false)
	check("before any listing", "open", "configured", true, false)
	ctx := context.Background()
	_ = r.refreshOne(ctx, entries[0]) // an empty listing
	check("empty listing", "open", "a", false, false)
	_ = r.refreshOne(ctx, entries[0]) // a failed one
	check("failed listing", "open", "a", false, false)
	_ = r.refreshOne(ctx, entries[0]) // lists a
	check("listed", "open", "a", true, true)
	check("listed", "open", "configured", false, true)
	_ = r.refreshOne(ctx, entries[0]) // fails again
	check("failure after a listing", "open", "a", true, true)
}
