package providers

import (
	"context"
	"time"
)

// SleepCtx waits d, or less when ctx ends first, and reports whether the
// whole of d passed with ctx still live. A d of zero or less does not
// wait: it reports whether ctx is still live.
func SleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SleepUntilCtx waits until at, as SleepCtx does.
func SleepUntilCtx(ctx context.Context, at time.Time) bool {
	return SleepCtx(ctx, time.Until(at))
}
