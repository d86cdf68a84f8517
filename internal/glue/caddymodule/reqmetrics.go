package caddymodule

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
)

// requestMetrics are the metrics of finished model requests (see package
// reqmetrics). They are one per process, so that the counts survive a
// reload; each config registers them in its own registry and observes
// into them with its own user path depth.
var requestMetrics = reqmetrics.New()

// provisionRequestMetrics registers the request metrics in the config's
// metrics registry and makes the app's observer, which labels user paths
// to the configured depth (server.metrics_user_path_depth).
func (a *App) provisionRequestMetrics(ctx caddy.Context) error {
	a.reqMetrics = requestMetrics.Observer(a.effective.Server.MetricsUserPathDepthOr())
	if reg := ctx.GetMetricsRegistry(); reg != nil {
		return requestMetrics.Register(reg)
	}
	return nil
}
