package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// accessLogRisks names the servers with an access log, sorted, and among
// them those that log credentials; servers without one are left out.
func TestAccessLogRisks(t *testing.T) {
	logged, creds := accessLogRisks(map[string]*caddyhttp.Server{
		"srv2":  {Logs: &caddyhttp.ServerLogConfig{ShouldLogCredentials: true}},
		"srv0":  {Logs: &caddyhttp.ServerLogConfig{}},
		"quiet": {},
		"nil":   nil,
	})
	if strings.Join(logged, ",") != "srv0,srv2" || strings.Join(creds, ",") != "srv2" {
		t.Fatalf("logged %v, credentials %v", logged, creds)
	}
	if logged, creds := accessLogRisks(nil); logged != nil || creds != nil {
		t.Fatalf("no servers: %v %v", logged, creds)
	}
}
