// Package handlers holds Modelgate's seven HTTP handler modules. Each is
// small: it reads the request, asks a domain package or the modelgate app,
// and writes the answer. The `modelgate` Caddyfile directive expands to all
// seven in the order of the request path.
package handlers

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
)

// loadApp returns the modelgate app of the running config, creating it
// with defaults (and the environment) when the config has none.
func loadApp(ctx caddy.Context) (*caddymodule.App, error) {
	v, err := ctx.App("modelgate")
	if err != nil {
		return nil, fmt.Errorf("loading the modelgate app: %w", err)
	}
	app, ok := v.(*caddymodule.App)
	if !ok {
		return nil, fmt.Errorf("modelgate app has unexpected type %T", v)
	}
	return app, nil
}
