package caddymodule

import (
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// CredentialLogFields are the access-log fields that carry a credential
// the gateway accepts or forwards and that Caddy's access log writes in
// clear: Caddy redacts only Authorization, Proxy-Authorization and
// cookies, and copies the request headers for its log before any handler
// runs, so removing them in a handler does not keep them out of it. An
// access log keeps them out when its encoder deletes these fields:
//
//	format filter {
//		wrap json
//		fields {
//			request>headers>X-Api-Key delete
//			request>headers>Api-Key delete
//			request>headers>X-Goog-Api-Key delete
//			request>headers>Sec-Websocket-Protocol delete
//		}
//	}
//
// The last is the WebSocket subprotocol list, in which browser clients of
// OpenAI's realtime API put a key (openai-insecure-api-key.<key>).
var CredentialLogFields = []string{
	"request>headers>X-Api-Key",
	"request>headers>Api-Key",
	"request>headers>X-Goog-Api-Key",
	"request>headers>Sec-Websocket-Protocol",
}

// accessLogRisks names, sorted, the servers of the http app that write an
// access log, and those of them that log credentials (should_log_credentials,
// so even Authorization is written in clear).
func accessLogRisks(servers map[string]*caddyhttp.Server) (logged, credentials []string) {
	for name, srv := range servers {
		if srv == nil || srv.Logs == nil {
			continue
		}
		logged = append(logged, name)
		if srv.Logs.ShouldLogCredentials {
			credentials = append(credentials, name)
		}
	}
	sort.Strings(logged)
	sort.Strings(credentials)
	return logged, credentials
}

// warnAccessLogs warns, once per start, about each HTTP server that
// writes an access log: the gateway cannot take credential headers out of
// that log itself, so the operator must filter them (see
// CredentialLogFields). It reads the http app's configuration only.
func warnAccessLogs(ctx caddy.Context, logger *zap.Logger) {
	app, err := ctx.AppIfConfigured("http")
	if err != nil {
		return
	}
	httpApp, ok := app.(*caddyhttp.App)
	if !ok {
		return
	}
	logged, credentials := accessLogRisks(httpApp.Servers)
	if len(logged) > 0 {
		logger.Warn("access logging is on: Caddy writes the x-api-key, api-key and x-goog-api-key request headers "+
			"to the access log in clear unless the log's encoder deletes them; use format filter with "+
			strings.Join(CredentialLogFields, ", ")+" set to delete (see the README, Access logs)",
			zap.Strings("servers", logged))
	}
	if len(credentials) > 0 {
		logger.Warn("should_log_credentials is on: the access log also writes Authorization, and with it API keys, in clear",
			zap.Strings("servers", credentials))
	}
}
