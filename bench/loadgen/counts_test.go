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

// TestFixedRateKeepsToItsSchedule: with -rate the generator starts no
// request before it is due, so a run sends at most rate × its length,
// whatever the server's speed, and reports the rate it ran at.
func TestFixedRateKeepsToItsSchedule(t *testing.T) {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	cfg := config{url: srv.URL + "/v1/chat/completions", shape: "chat", concurrency: 4, rate: 100,
		warmup: 100 * time.Millisecond, duration: 300 * time.Millisecond, timeout: 5 * time.Second,
		bodySize: 512, model: "m", maxTokens: 4}
	res, err := newGenerator(cfg).run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Due times 0, 10 ms, ... before the end at 400 ms: at most 40.
	if got := int(seen.Load()); got > 40 || got == 0 || res.Sent != got {
		t.Errorf("server saw %d requests, generator sent %d; want 1 to 40", got, res.Sent)
	}
	if res.Rate != 100 || res.OK == 0 {
		t.Errorf("rate %v ok %d", res.Rate, res.OK)
	}
}

func TestTicketAt(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, c := range []struct {
		k    int64
		rate float64
		want time.Duration
	}{{0, 100, 0}, {1, 100, 10 * time.Millisecond}, {3, 1500, 2 * time.Millisecond}, {1000, 1000, time.Second}} {
		if got := ticketAt(start, c.k, c.rate).Sub(start); got != c.want {
			t.Errorf("ticket %d at %v/s: %v, want %v", c.k, c.rate, got, c.want)
		}
	}
}
