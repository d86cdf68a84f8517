package e2e

import (
	"os"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// childGatewayEnv, set to "1" in the environment of this test binary, makes
// it run as the modelgate command instead of running tests: the arguments
// are the command's ("run --config <Caddyfile> --adapter caddyfile"). The
// tests that need gateways in separate OS processes (to kill one with
// SIGKILL, say) start the binary they run in that way, so no separate build
// of cmd/modelgate is needed: it is the same Caddy with the same modules.
const childGatewayEnv = "MODELGATE_E2E_GATEWAY_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(childGatewayEnv) == "1" {
		os.Args = append([]string{"modelgate"}, os.Args[1:]...)
		caddycmd.Main()
		return
	}
	os.Exit(m.Run())
}
