package providers

import (
	"context"
	"testing"
	"time"
)

func TestSleepCtx(t *testing.T) {
	if !SleepCtx(context.Background(), time.Millisecond) {
		t.Error("a full wait reported as interrupted")
	}
	if !SleepCtx(context.Background(), 0) || !SleepCtx(context.Background(), -time.Second) {
		t.Error("no wait with a live context reported as interrupted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if SleepCtx(ctx, time.Hour) {
		t.Error("a cancelled wait reported as complete")
	}
	if SleepCtx(ctx, 0) {
		t.Error("no wait with an ended context reported as complete")
	}
	if SleepUntilCtx(ctx, time.Now().Add(time.Hour)) || !SleepUntilCtx(context.Background(), time.Now().Add(-time.Second)) {
		t.Error("SleepUntilCtx does not follow SleepCtx")
	}
}
