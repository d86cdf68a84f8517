package main

import (
	"fmt"
	"path/filepath"
)

// Credentials the harness uses. Nothing real: every process is on loopback.
const (
	masterKey   = "bench-master-key"   // callers' key for modelgate
	upstreamKey = "bench-upstream-key" // mockupstream's key; modelgate's provider key
	benchModel  = "mock-chat"
)

// plainCaddyfile is the baseline a user would run without a gateway: the
// same binary (modelgate is Caddy with the standard modules), a bare
// reverse_proxy, no admin endpoint and nothing persisted.
func plainCaddyfile(dir string, port, upstreamPort int) string {
	return fmt.Sprintf(`{
	admin off
	persist_config off
	storage file_system %s
}

http://:%d {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d
}
`, filepath.Join(dir, "caddy-storage-plain"), port, upstreamPort)
}

// modelgateCaddyfile is the gateway under test: the full default chain
// (the modelgate directive), the master key on, one OpenAI-family provider
// pointing at mockupstream. adminAddr is "off", or a loopback address when
// profiling (Caddy serves /debug/pprof/ on its admin endpoint).
func modelgateCaddyfile(dir string, port, upstreamPort int, adminAddr string) string {
	return fmt.Sprintf(`{
	admin %s
	persist_config off
	storage file_system %s
	modelgate {
		storage %s
		master_key %s
		provider up {
			type openai
			api_key %s
			base_url http://127.0.0.1:%d/v1
			models %s
			models_mode allowlist
		}
	}
}

http://:%d {
	bind 127.0.0.1
	modelgate
}
`, adminAddr, filepath.Join(dir, "caddy-storage-modelgate"), filepath.Join(dir, "modelgate.db"),
		masterKey, upstreamKey, upstreamPort, benchModel, port)
}

// modelgateEnv turns on what the budget measures: audit logging and usage
// (on by default; set explicitly so an operator's environment cannot turn
// them off), and one user-path rate-limit rule on "/" that matches all
// traffic without ever refusing it. Until rate limiting lands, modelgate
// ignores the SET_RATE_LIMIT_ variable.
var modelgateEnv = []string{
	"LOGGING_ENABLED=true",
	"USAGE_ENABLED=true",
	"RATE_LIMITS_ENABLED=true",
	"SET_RATE_LIMIT_=rpm=100000000",
}
