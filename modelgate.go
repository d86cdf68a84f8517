// Package modelgate registers every Modelgate Caddy module. Importing it
// (as xcaddy does with `--with github.com/modelgate/modelgate`) is enough
// to build Modelgate into a Caddy binary.
package modelgate

import (
	// The modelgate app and its Caddyfile global option.
	_ "github.com/modelgate/modelgate/internal/glue/caddymodule"
	// The seven modelgate_* HTTP handlers and the modelgate directive.
	_ "github.com/modelgate/modelgate/internal/glue/handlers"
)
