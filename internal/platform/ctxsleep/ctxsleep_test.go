package ctxsleep

import (
	"context"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	if !For(context.Background(), time.Millisecond) {
		t.Error("a full wait reported as interrupted")
	}
	if !For(context.Background(), 0) || !For(context.Background(), -time.Second) {
		t.Error("no wait with a live context reported as interrupted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if For(ctx, time.Hour) {
		t.Error("a cancelled wait reported as complete")
	}
	if For(ctx, 0) {
		t.Error("no wait with an ended context reported as complete")
	}
	if Until(ctx, time.Now().Add(time.Hour)) || !Until(context.Background(), time.Now().Add(-time.Second)) {
		t.Error("Until does not follow For")
	}
}
