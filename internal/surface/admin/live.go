package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// liveLogs answers GET /admin/live/logs: the live stream of audit and
// usage events as server-sent events (audit, usage, heartbeat every 15
// seconds, reset), each with its sequence number as id. A cursor (the
// Last-Event-ID header, else ?cursor=) replays the events after it, or
// sends reset when they have left the buffer; a cursor that is not a
// number is 400. The stream is off unless live logs are enabled
// (DASHBOARD_LIVE_LOGS_ENABLED): then it answers 404 live_logs_disabled,
// as a route that is not there. A client that falls a whole buffer behind
// is disconnected; it reconnects with its last id and gets a reset.
func (h *Handler) liveLogs(w http.ResponseWriter, r *http.Request, _ params) {
	if !h.opts.Config.Admin.LiveLogsOn() {
		apierr.Write(w, apierr.NotFound("the live log stream is disabled; set DASHBOARD_LIVE_LOGS_ENABLED=true to enable it").
			WithCode("live_logs_disabled"))
		return
	}
	cursor, hasCursor, err := audit.ParseCursor(r.URL.Query(), r.Header.Get("Last-Event-ID"))
	if err != nil {
		h.readFailed(w, err)
		return
	}
	hub := h.opts.Live
	if hub == nil {
		hub = h.idleHub // nothing records: heartbeats only
	}
	rc := http.NewResponseController(w)
	// A stream outlives any write timeout of the server.
	_ = rc.SetWriteDeadline(time.Time{})
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	// A compressing encoder would hold events back: no-transform tells
	// Caddy's encode handler (and proxies) to pass the body unchanged.
	hd.Set("Cache-Control", "no-store, no-transform")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The stream ends when the server starts shutting down (a reload or a
	// stop), which would otherwise wait for the client to leave; the
	// client reconnects with its last id, to the new configuration.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if stop := serverStopping(r); stop != nil {
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	err = hub.Stream(ctx, w, rc.Flush, cursor, hasCursor, h.opts.LiveHeartbeat)
	if errors.Is(err, audit.ErrSlowSubscriber) {
		h.opts.Logger.Info("live log client fell behind and was disconnected")
	} else if err != nil {
		h.opts.Logger.Debug("live log stream ended", zap.Error(err))
	}
}
