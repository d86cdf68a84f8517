package caddymodule

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/platform/gcpace"
)

// A started app holds the configured minimum heap until it stops;
// gc_min_heap 0 holds none.
func TestAppHoldsGCMinHeapWhileRunning(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GC_MIN_HEAP_BYTES", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		name    string
		minHeap *int64
		want    bool
	}{
		{"default", nil, true},
		{"off", new(int64), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			a := &App{}
			a.Storage = filepath.Join(t.TempDir(), "mg.db")
			a.Server.GCMinHeapBytes = c.minHeap
			if err := a.Provision(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.Start(); err != nil {
				t.Fatal(err)
			}
			if _, on := gcpace.Percent(); on != c.want {
				t.Errorf("pacer active while running = %v, want %v", on, c.want)
			}
			if err := a.Stop(); err != nil {
				t.Fatal(err)
			}
			if _, on := gcpace.Percent(); on {
				t.Error("pacer still active after Stop")
			}
		})
	}
}
