package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAnthropicRequestsAndPagedListing(t *testing.T) {
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Clone(context.Background()))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/models" && r.URL.Query().Get("after_id") == "":
			_, _ = io.WriteString(w, `{"data":[{"type":"model","id":"claude-a","created_at":"2025-05-14T00:00:00Z"}],"has_more":true,"last_id":"claude-a"}`)
		case r.URL.Path == "/v1/models":
			_, _ = io.WriteString(w, `{"data":[{"type":"model","id":"claude-b"}],"has_more":false,"last_id":"claude-b"}`)
		default:
			_, _ = io.WriteString(w, `{}`)
		}
	}))
	defer srv.Close()
	p := mustNew(t, Options{Name: "anthropic", Type: "anthropic", BaseURL: srv.URL + "/v1/", APIKey: "ak", Client: srv.Client()})
	ms, err := p.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "claude-a" || ms[0].Created == 0 || ms[1].ID != "claude-b" {
		t.Fatalf("%+v", ms)
	}
	if seen[1].URL.Query().Get("after_id") != "claude-a" {
		t.Fatalf("second page query %q", seen[1].URL.RawQuery)
	}
	resp, err := p.Do(context.Background(), EndpointMessages, "claude-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	last := seen[len(seen)-1]
	if last.URL.Path != "/v1/messages" || last.Header.Get("x-api-key") != "ak" ||
		last.Header.Get("anthropic-version") != AnthropicVersion || last.Header.Get("Authorization") != "" {
		t.Fatalf("path %q headers %v", last.URL.Path, last.Header)
	}
	if _, err := p.Do(context.Background(), EndpointEmbeddings, "m", nil); err == nil {
		t.Fatal("embeddings accepted by the anthropic adapter")
	}
	if p.Supports(EndpointChat) || !p.Supports(EndpointCountTokens) || p.Shape() != ShapeMessages {
		t.Fatal("capabilities wrong")
	}
}
