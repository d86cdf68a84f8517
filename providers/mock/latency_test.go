package mock

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLatencyHonoured(t *testing.T) {
	const latency = 80 * time.Millisecond
	for _, path := range []string{"/v1/models", "/v1/nope"} {
		start := time.Now()
		rec := do(t, Options{Latency: latency}, http.MethodGet, path, "")
		if elapsed := time.Since(start); elapsed < latency {
			t.Errorf("%s answered after %v, before the %v latency", path, elapsed, latency)
		}
		if rec.Body.Len() == 0 {
			t.Errorf("%s: empty response", path)
		}
	}
}

func TestLatencyCancelled(t *testing.T) {
	h := NewHandler(Options{Latency: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions",
		strings.NewReader(`{"model":"mock-chat","messages":[{"role":"user","content":"x"}]}`)).WithContext(ctx)
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("handler took %v after cancellation", elapsed)
	}
	if rec.Body.Len() != 0 {
		t.Errorf("cancelled request got a body: %s", rec.Body)
	}
}

func TestChunkDelayAndStreamCancel(t *testing.T) {
	const delay = 20 * time.Millisecond
	body := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"a b c"}]}`
	start := time.Now()
	rec := do(t, Options{ChunkDelay: delay}, http.MethodPost, "/v1/chat/completions", body)
	events := sseEvents(t, rec.Body.String())
	if least := time.Duration(len(events)-1) * delay; time.Since(start) < least {
		t.Errorf("%d events in %v, want at least %v", len(events), time.Since(start), least)
	}

	// Cancelling mid-stream stops the handler promptly.
	long := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("w ", 500) + `"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(long)).WithContext(ctx)
	rec = httptest.NewRecorder()
	start = time.Now()
	NewHandler(Options{ChunkDelay: delay}).ServeHTTP(rec, req)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("stream ran %v after cancellation", elapsed)
	}
	if strings.Contains(rec.Body.String(), "[DONE]") {
		t.Errorf("cancelled stream completed")
	}
}
