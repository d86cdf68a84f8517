package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// recordingUpstream answers every request with body and remembers the last
// request it saw.
type recordingUpstream struct {
	srv  *httptest.Server
	last *http.Request
	body string
}

func newRecordingUpstream(t *testing.T, answer string) *recordingUpstream {
	u := &recordingUpstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.last, u.body = r.Clone(context.Background()), string(b)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func TestOpenAICompatRequests(t *testing.T) {
	cases := []struct {
		typ, base, apiVersion string
		wantPath, wantQuery   string
		wantHeader, wantValue string
	}{
		{"openai", "/v1", "", "/v1/chat/completions", "", "Authorization", "Bearer k"},
		{"groq", "/openai/v1/", "", "/openai/v1/chat/completions", "", "Authorization", "Bearer k"},
		{"gemini", "/v1beta/openai", "", "/v1beta/openai/chat/completions", "", "Authorization", "Bearer k"},
		{"azure", "", "2024-10-21", "/openai/deployments/my deploy/chat/completions", "api-version=2024-10-21", "Api-Key", "k"},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			u := newRecordingUpstream(t, `{}`)
			p := NewOpenAICompat(OpenAICompatOptions{Name: "x", Type: c.typ, BaseURL: u.srv.URL + c.base, APIKey: "k",
				APIVersion: c.apiVersion, Client: u.srv.Client(), UserAgent: "modelgate/test"})
			resp, err := p.Do(context.Background(), EndpointChat, "my deploy", []byte(`{"model":"m"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if u.last.URL.Path != c.wantPath || u.last.URL.RawQuery != c.wantQuery {
				t.Fatalf("path %q query %q", u.last.URL.Path, u.last.URL.RawQuery)
			}
			if got := u.last.Header.Get(c.wantHeader); got != c.wantValue {
				t.Fatalf("%s = %q", c.wantHeader, got)
			}
			if c.typ == "azure" && u.last.Header.Get("Authorization") != "" {
				t.Fatal("azure must not get a bearer header")
			}
			if u.body != `{"model":"m"}` || u.last.Header.Get("User-Agent") != "modelgate/test" {
				t.Fatalf("body %q ua %q", u.body, u.last.Header.Get("User-Agent"))
			}
		})
	}
}

func TestNoKeyNoAuthHeader(t *testing.T) {
	u := newRecordingUpstream(t, `{}`)
	p := NewOpenAICompat(OpenAICompatOptions{Name: "o", Type: "ollama", BaseURL: u.srv.URL, Client: u.srv.Client()})
	resp, err := p.Do(context.Background(), EndpointEmbeddings, "m", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if u.last.Header.Get("Authorization") != "" || u.last.URL.Path != "/embeddings" {
		t.Fatalf("auth %q path %q", u.last.Header.Get("Authorization"), u.last.URL.Path)
	}
}

func TestListModelsGeminiPrefix(t *testing.T) {
	u := newRecordingUpstream(t, `{"object":"list","data":[{"id":"models/gemini-2.5-flash","owned_by":"google"},{"id":"plain","created":5}]}`)
	p := NewOpenAICompat(OpenAICompatOptions{Name: "g", Type: "gemini", BaseURL: u.srv.URL, Client: u.srv.Client()})
	ms, err := p.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "gemini-2.5-flash" || ms[1].ID != "plain" || ms[1].Created != 5 {
		t.Fatalf("%+v", ms)
	}
	if u.last.Method != "GET" || u.last.URL.Path != "/models" {
		t.Fatalf("%s %s", u.last.Method, u.last.URL.Path)
	}
}

func TestListModelsErrors(t *testing.T) {
	for _, answer := range []string{`{"error":"x"}`, `not json`} {
		u := newRecordingUpstream(t, answer)
		p := NewOpenAICompat(OpenAICompatOptions{Name: "o", Type: "openai", BaseURL: u.srv.URL, Client: u.srv.Client()})
		if _, err := p.ListModels(context.Background()); err == nil {
			t.Fatalf("%s: no error", answer)
		}
	}
}

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
	r.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
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
