package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// TestAdaptersNeverFollowRedirects: whatever call an adapter makes (model
// calls whole and in parts, passthrough relays, transcriptions, model
// listings, the batch API, realtime handshakes), an upstream's redirect
// to another host, or to another path of the same host, is the answer:
// nothing is sent where it points, so neither the prompt nor the
// provider's key (Authorization, x-api-key, api-key, xi-api-key) gets
// there. The client handed to New follows redirects (http.Client's
// default); the adapter's copy does not.
func TestAdaptersNeverFollowRedirects(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+r.Header.Get("X-Api-Key")+
			r.Header.Get("Api-Key")+r.Header.Get("Xi-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[],"id":"x"}`)
	}))
	defer other.Close()
	for _, sameHost := range []bool{false, true} {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/moved/") {
				mu.Lock()
				elsewhere = append(elsewhere, "same host: "+r.URL.Path)
				mu.Unlock()
				return
			}
			to := other.URL + r.URL.Path
			if sameHost {
				to = "/moved" + r.URL.Path
			}
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		}))
		client := &http.Client{} // follows redirects by default
		oai := mustNew(t, Options{Name: "o", Type: "openai", BaseURL: up.URL + "/v1", APIKey: "sk-o", Client: client})
		ant := mustNew(t, Options{Name: "a", Type: "anthropic", BaseURL: up.URL + "/v1", APIKey: "sk-ant-a", Client: client})
		az := mustNew(t, Options{Name: "z", Type: "azure", BaseURL: up.URL, APIKey: "az-key", Client: client})
		el := mustNew(t, Options{Name: "e", Type: "elevenlabs", BaseURL: up.URL, APIKey: "xi-key", Client: client})
		ctx := context.Background()
		body := []byte(`{"model":"m","messages":[{"role":"user","content":"secret prompt"}]}`)
		form := &TranscriptionForm{Fields: []FormField{{Name: "model", Value: "m"}}, FileName: "a.wav", File: []byte("RIFF")}
		answers := map[string]func() (*http.Response, error){
			"openai Do":    func() (*http.Response, error) { return oai.Do(ctx, EndpointChat, "m", body) },
			"anthropic Do": func() (*http.Response, error) { return ant.Do(ctx, EndpointMessages, "m", body) },
			"azure Do":     func() (*http.Response, error) { return az.Do(ctx, EndpointChat, "m", body) },
			"openai DoParts": func() (*http.Response, error) {
				return oai.(PartsSender).DoParts(ctx, EndpointChat, "m", [][]byte{body[:10], body[10:]})
			},
			"voice Do": func() (*http.Response, error) {
				return el.Do(ctx, EndpointSpeech, "m", []byte(`{"model":"m","input":"hi","voice":"v"}`))
			},
			"anthropic Relay": func() (*http.Response, error) {
				return ant.(Relayer).Relay(ctx, RawRequest{Method: "POST", Path: "messages", Body: strings.NewReader(string(body)), ContentLength: int64(len(body))})
			},
			"openai Transcribe": func() (*http.Response, error) { return oai.(Transcriber).Transcribe(ctx, "m", form) },
			"azure Transcribe":  func() (*http.Response, error) { return az.(Transcriber).Transcribe(ctx, "m", form) },
			"voice Transcribe":  func() (*http.Response, error) { return el.(Transcriber).Transcribe(ctx, "m", form) },
		}
		for name, call := range answers {
			resp, err := call()
			if err != nil {
				t.Fatalf("same host %v, %s: %v", sameHost, name, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") == "" {
				t.Errorf("same host %v, %s: status %d, want the redirect itself", sameHost, name, resp.StatusCode)
			}
		}
		for _, p := range []Provider{oai, ant, el} {
			if _, err := p.ListModels(ctx); err == nil {
				t.Errorf("same host %v, %s listing: a redirect was taken for a listing", sameHost, p.Type())
			}
		}
		if _, err := oai.(BatchAPI).BatchFile(ctx, "file-1"); err == nil || !strings.Contains(err.Error(), "status 307") {
			t.Errorf("same host %v, batch API: %v", sameHost, err)
		}
		if _, resp, err := oai.(RealtimeDialer).DialRealtime(ctx, "m", nil); err == nil || resp == nil || resp.StatusCode != http.StatusTemporaryRedirect {
			t.Errorf("same host %v, realtime: %v", sameHost, err)
		}
		up.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(elsewhere) != 0 {
		t.Fatalf("requests reached where the upstream pointed: %q", elsewhere)
	}
}

// TestNewKeepsTheCallersClient: New redirects nothing of the client it
// is given; the adapter works on a copy.
func TestNewKeepsTheCallersClient(t *testing.T) {
	client := &http.Client{}
	mustNew(t, Options{Name: "o", Type: "openai", BaseURL: "http://up.invalid/v1", APIKey: "k", Client: client})
	if client.CheckRedirect != nil {
		t.Fatal("New changed the caller's client")
	}
}

// TestTraceContextGoesUpstreamOnlyWhenMarked: a model call carries the
// caller's traceparent only with a context marked by
// WithTracePropagation.
func TestTraceContextGoesUpstreamOnlyWhenMarked(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	for _, marked := range []bool{false, true} {
		c := ctx
		if marked {
			c = WithTracePropagation(ctx)
		}
		req, _ := http.NewRequestWithContext(c, http.MethodPost, "http://upstream.invalid/v1/chat/completions", nil)
		injectTrace(req)
		tp := req.Header.Get("Traceparent")
		if marked != (tp != "") || (marked && !strings.Contains(tp, sc.TraceID().String())) {
			t.Fatalf("marked %v: traceparent %q", marked, tp)
		}
	}
}
