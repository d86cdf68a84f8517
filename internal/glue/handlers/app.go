// Package handlers holds Modelgate's seven HTTP handler modules. Each is
// small: it reads the request, asks a domain package or the modelgate app,
// and writes the answer. The `modelgate` Caddyfile directive expands to all
// seven in the order of the request path.
package handlers

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
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

// started returns the started app's runtime, waiting for the app to start
// (caddymodule.App.Ready) once per request: the stage that waited keeps
// the runtime on the request's reqinfo.Info, and the later stages read it
// from there.
func started(app *caddymodule.App, r *http.Request) (*caddymodule.Runtime, error) {
	info := reqinfo.From(r.Context())
	if info != nil {
		if rt, ok := info.Started().(*caddymodule.Runtime); ok {
			return rt, nil
		}
	}
	rt, err := app.Ready(r.Context())
	if err != nil {
		return nil, err
	}
	if info != nil {
		info.SetStarted(rt)
	}
	return rt, nil
}
