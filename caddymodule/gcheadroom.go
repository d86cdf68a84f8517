package caddymodule

import (
	"os"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/gcpace"
)

// holdGCHeadroom gives the garbage collector the configured headroom for
// as long as this instance runs (see package gcpace), and says so once.
func (a *App) holdGCHeadroom() {
	headroom := a.effective.Server.GCHeadroom()
	release, active := gcpace.Hold(headroom)
	a.gcRelease = release
	switch {
	case active:
		a.logger.Debug("garbage collector headroom", zap.Int64("bytes", headroom))
	case headroom > 0 && os.Getenv("GOGC") != "":
		a.logger.Info("GOGC is set: the garbage collector keeps its pacing; gc_headroom is not applied")
	}
}
