package caddymodule

import (
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/platform/gcpace"
)

// holdGCMinHeap gives the garbage collector the configured minimum heap
// for as long as this instance runs (see package gcpace).
func (a *App) holdGCMinHeap() {
	minHeap := a.effective.Server.GCMinHeap()
	release, active := gcpace.Hold(minHeap)
	a.gcRelease = release
	switch {
	case active:
		a.logger.Debug("garbage collector minimum heap", zap.Int64("bytes", minHeap))
	case minHeap > 0 && gcpace.GOGCSet():
		a.logger.Info("GOGC is set: the garbage collector keeps its pacing; gc_min_heap is not applied")
	}
}
