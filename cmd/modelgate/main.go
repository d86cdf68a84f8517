// Command modelgate is Caddy with its standard modules and every Modelgate
// module compiled in. Run it like caddy: `modelgate run --config Caddyfile`.
// `modelgate version` prints Modelgate's own version and commit on the
// line before Caddy's.
package main

import (
	"fmt"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/modelgate/modelgate"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		fmt.Println(modelgate.VersionLine())
	}
	caddycmd.Main()
}
