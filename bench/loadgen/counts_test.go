package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestSentCountsWarmupAndFailures: Sent and Answered count every request
// the server saw, warm-up included, while OK counts only measured ones.
func TestSentCountsWarmupAndFailures(t *testing.T) {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := seen.Add(1)
		if n%5 == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	cfg := config{url: srv.URL + "/v1/chat/completions", shape: "chat", concurrency: 2,
		warmup: 300 * time.Millisecond, duration: 300 * time.Millisecond, timeout: 5 * time.Second,
		bodySize: 512, model: "m", maxTokens: 4}
	res, err := newGenerator(cfg).run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := int(seen.Load()); res.Sent != got || res.Answered != got {
		t.Errorf("sent %d answered %d, server saw %d", res.Sent, res.Answered, got)
	}
	if measured := res.OK + res.Non2xx + res.Errors; measured >= res.Sent || res.OK == 0 || res.Non2xx == 0 {
		t.Errorf("measured %d (ok %d, non-2xx %d) of %d sent: warm-up must count in Sent only", measured, res.OK, res.Non2xx, res.Sent)
	}
}
