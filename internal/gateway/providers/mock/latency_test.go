package mock

import (
	"bufio"
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
	// Every event but the first and [DONE] waits for the delay.
	if least := time.Duration(len(events)-2) * delay; time.Since(start) < least {
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

// The usage chunk and [DONE] are not generated: they follow the finish
// chunk without the chunk delay.
func TestUsageChunkNotDelayed(t *testing.T) {
	const delay = 300 * time.Millisecond
	body := `{"model":"mock-chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"a"}]}`
	resp, err := post(t, context.Background(), &transport{handler: NewHandler(Options{ChunkDelay: delay})}, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var finishedAt time.Time
	var after []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		switch {
		case strings.Contains(line, `"finish_reason":"stop"`):
			finishedAt = time.Now()
		case !finishedAt.IsZero() && strings.HasPrefix(line, "data: "):
			after = append(after, line)
		}
	}
	if len(after) != 2 || !strings.Contains(after[0], `"usage":{`) || after[1] != "data: [DONE]\n" {
		t.Fatalf("after the finish chunk: %q, want the usage chunk and [DONE]", after)
	}
	if gap := time.Since(finishedAt); gap >= delay {
		t.Errorf("usage chunk and [DONE] came %v after the finish chunk, a chunk delay is %v", gap, delay)
	}
}
