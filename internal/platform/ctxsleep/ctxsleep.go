// Package ctxsleep waits for a duration unless a context ends first.
package ctxsleep

import (
	"context"
	"time"
)

// For waits d, or less when ctx ends first, and reports whether the whole
// of d passed with ctx still live. A d of zero or less does not wait: it
// reports whether ctx is still live.
func For(ctx context.Context, d time.Duration) bool {
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

// Until waits until at, as For does.
func Until(ctx context.Context, at time.Time) bool {
	return For(ctx, time.Until(at))
}
