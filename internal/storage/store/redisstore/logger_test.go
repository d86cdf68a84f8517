package redisstore

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestRedisLogGoesToZap(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	(&redisLog{l: zap.New(core), now: time.Now}).Printf(context.Background(), "pool: failed to dial after %d attempts", 5)
	if e := logs.All(); len(e) != 1 || e[0].Message != "pool: failed to dial after 5 attempts" {
		t.Fatalf("%+v", e)
	}
}

// TestRedisLogAtMostOnceAMinute: while a server is down go-redis logs a
// failed dial several times a second; the gateway's log gets the first
// and then one a minute, saying how many were left out.
func TestRedisLogAtMostOnceAMinute(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &redisLog{l: zap.New(core), now: func() time.Time { return now }}
	for range 120 { // two a second for a minute
		r.Printf(context.Background(), "redis: connection pool: failed to dial")
		now = now.Add(500 * time.Millisecond)
	}
	r.Printf(context.Background(), "redis: connection pool: failed to dial")
	e := logs.All()
	if len(e) != 2 {
		t.Fatalf("%d lines logged for 121 in a minute, want 2", len(e))
	}
	if got := e[1].ContextMap()["similar_lines_left_out"]; got != int64(119) {
		t.Errorf("second line says %v left out, want 119", got)
	}
}
