package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
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
			p := mustNew(t, Options{Name: "x", Type: c.typ, BaseURL: u.srv.URL + c.base, APIKey: "k",
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
	p := mustNew(t, Options{Name: "o", Type: "ollama", BaseURL: u.srv.URL, Client: u.srv.Client()})
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
	p := mustNew(t, Options{Name: "g", Type: "gemini", BaseURL: u.srv.URL, Client: u.srv.Client()})
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
		p := mustNew(t, Options{Name: "o", Type: "openai", BaseURL: u.srv.URL, Client: u.srv.Client()})
		if _, err := p.ListModels(context.Background()); err == nil {
			t.Fatalf("%s: no error", answer)
		}
	}
}
