package caddymodule

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/gcpace"
)

// A started app holds the configured collector headroom until it stops;
// gc_headroom 0 holds none.
func TestAppHoldsGCHeadroomWhileRunning(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GC_HEADROOM_BYTES", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		name     string
		headroom *int64
		want     bool
	}{
		{"default", nil, true},
		{"off", new(int64), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			a := &App{}
			a.Storage = filepath.Join(t.TempDir(), "mg.db")
			a.Server.GCHeadroomBytes = c.headroom
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
