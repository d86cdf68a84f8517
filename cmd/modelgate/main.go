// Command modelgate is Caddy with its standard modules and every Modelgate
// module compiled in. Run it like caddy: `modelgate run --config Caddyfile`.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/modelgate/modelgate"
)

func main() {
	caddycmd.Main()
}
