package caddymodule

import (
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
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
//			request>headers>Xi-Api-Key delete
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
	"request>headers>Xi-Api-Key",
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

// warnAccessLogs warns, once per start, about every log that writes the
// access entries of servers (the http app's) with a credential header in
// clear: the gateway cannot take those headers out of that log itself, so
// the operator must filter them (see CredentialLogFields). A log whose
// encoder already deletes (or otherwise hides) all of them gets no
// warning. When the logs of the running configuration cannot be read, it
// warns about every server that writes an access log. It warns again
// about every server with should_log_credentials on.
func warnAccessLogs(ctx caddy.Context, servers map[string]*caddyhttp.Server, logger *zap.Logger) {
	logged, credentials := accessLogRisks(servers)
	if len(logged) > 0 {
		leaky, known := leakyAccessLogs(ctx, servers)
		if !known || len(leaky) > 0 {
			fields := []zap.Field{zap.Strings("servers", logged)}
			if known {
				fields = append(fields, zap.Strings("logs", leaky))
			}
			logger.Warn("access logging is on: Caddy writes the x-api-key, api-key, xi-api-key and x-goog-api-key request headers "+
				"and a realtime key in sec-websocket-protocol to the access log in clear unless the log's encoder deletes them; "+
				"use format filter with "+strings.Join(CredentialLogFields, ", ")+" set to delete (see docs/access.md, Access logs)",
				fields...)
		}
	}
	if len(credentials) > 0 {
		logger.Warn("should_log_credentials is on: the access log also writes Authorization, and with it API keys, in clear",
			zap.Strings("servers", credentials))
	}
}

// leakyAccessLogs names, sorted, the logs of the configuration ctx runs
// that receive the access entries of servers and would write a
// credential header of CredentialLogFields in clear. known is false when
// Caddy's logs cannot be read (see provisionedLogs).
func leakyAccessLogs(ctx caddy.Context, servers map[string]*caddyhttp.Server) (leaky []string, known bool) {
	logs, ok := provisionedLogs(ctx)
	if !ok {
		return nil, false
	}
	names := accessLoggerNames(servers)
	for name, cl := range logs {
		if cl == nil || !takesAccessEntries(cl.Level) || !acceptsAny(cl.Include, cl.Exclude, names) {
			continue
		}
		enc, ok := logEncoder(cl)
		if !ok {
			return nil, false
		}
		if encoderKeepsCredentials(enc) {
			leaky = append(leaky, name)
		}
	}
	sort.Strings(leaky)
	return leaky, true
}

// accessLoggerNames returns, sorted, the names of the loggers the servers
// write the access entries of their sites with: "http.log.access"
// followed by each logger name they map hosts to, and by the default
// logger name when it is set or no host is mapped (and unmapped hosts
// are not skipped). A server that maps hosts but names no default logger
// also writes, with the bare "http.log.access", requests for hosts none
// of its sites names; those never reach a site, so they are left out.
// (A per-request log_name is not seen here either.)
func accessLoggerNames(servers map[string]*caddyhttp.Server) []string {
	seen := map[string]bool{}
	add := func(n string) {
		full := "http.log.access"
		if n != "" {
			full += "." + n
		}
		seen[full] = true
	}
	for _, srv := range servers {
		if srv == nil || srv.Logs == nil {
			continue
		}
		for _, ns := range srv.Logs.LoggerNames {
			for _, n := range ns {
				add(n)
			}
		}
		if !srv.Logs.SkipUnmappedHosts && (srv.Logs.DefaultLoggerName != "" || len(srv.Logs.LoggerNames) == 0) {
			add(srv.Logs.DefaultLoggerName)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// takesAccessEntries reports whether a log at level (a Caddy log level,
// "" for INFO) writes access entries, which Caddy logs at INFO, and at
// ERROR for a 5xx answer.
func takesAccessEntries(level string) bool {
	switch strings.ToLower(level) {
	case "panic", "dpanic", "fatal":
		return false
	}
	return true
}

// acceptsAny reports whether a log with these include and exclude lists
// takes entries of any of the loggers names, by the rules of Caddy's
// logging: no lists take every logger; otherwise the longest namespace
// (a name or a parent of it) of either list that contains the logger
// decides, and a logger no include names is refused when there is an
// include list.
func acceptsAny(include, exclude, names []string) bool {
	for _, n := range names {
		if accepts(include, exclude, n) {
			return true
		}
	}
	return false
}

// accepts is acceptsAny for one logger name.
func accepts(include, exclude []string, name string) bool {
	if len(include) == 0 && len(exclude) == 0 {
		return true
	}
	name += "."
	longestAccept, longestReject := 0, 0
	for _, ns := range include {
		if strings.HasPrefix(name, ns+".") {
			longestAccept = max(longestAccept, len(ns))
		}
	}
	if len(include) > 0 && longestAccept == 0 {
		return false
	}
	for _, ns := range exclude {
		if ns == "*" {
			return false
		}
		if strings.HasPrefix(name, ns+".") {
			longestReject = max(longestReject, len(ns))
		}
	}
	return longestAccept > longestReject || len(include) == 0 && longestReject == 0
}

// probeCredential is the value encoderKeepsCredentials sends in each
// credential header.
const probeCredential = "modelgate-access-log-probe-credential"

// encoderKeepsCredentials reports whether enc, writing an access entry as
// Caddy does (the request object added to a copy of the encoder, then the
// entry), writes the value of a header of CredentialLogFields.
func encoderKeepsCredentials(enc zapcore.Encoder) bool {
	h := http.Header{}
	for _, f := range CredentialLogFields {
		h.Set(strings.TrimPrefix(f, "request>headers>"), probeCredential)
	}
	r := &http.Request{Method: http.MethodPost, Proto: "HTTP/1.1", Host: "localhost", RequestURI: "/v1/chat/completions",
		RemoteAddr: "127.0.0.1:1", Header: h}
	enc = enc.Clone()
	zap.Object("request", caddyhttp.LoggableHTTPRequest{Request: r}).AddTo(enc)
	buf, err := enc.EncodeEntry(zapcore.Entry{Level: zapcore.InfoLevel, LoggerName: "http.log.access", Message: "handled request"}, nil)
	if err != nil {
		return true
	}
	defer buf.Free()
	return strings.Contains(buf.String(), probeCredential)
}

// provisionedLogs returns the logs of the configuration ctx provisions
// (the one being started), "default" included. Caddy keeps that
// configuration in an unexported field of its Context, read here by
// reflection; ok is false when it cannot be (a Caddy version that keeps
// it elsewhere), and callers then assume the worst.
func provisionedLogs(ctx caddy.Context) (map[string]*caddy.CustomLog, bool) {
	v := reflect.ValueOf(&ctx).Elem().FieldByName("cfg")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*caddy.Config]() || v.IsNil() {
		return nil, false
	}
	cfg := (*caddy.Config)(v.UnsafePointer())
	if cfg.Logging == nil {
		return nil, false
	}
	return cfg.Logging.Logs, true
}

// logEncoder returns the encoder cl writes its entries with, kept by
// Caddy in an unexported field once the log is provisioned and read here
// by reflection; ok is false when it cannot be.
func logEncoder(cl *caddy.CustomLog) (zapcore.Encoder, bool) {
	f := reflect.ValueOf(&cl.BaseLog).Elem().FieldByName("encoder")
	if !f.IsValid() || f.Type() != reflect.TypeFor[zapcore.Encoder]() {
		return nil, false
	}
	enc, _ := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(zapcore.Encoder)
	return enc, enc != nil
}

// httpServers returns the servers of the http app ctx configures, or nil
// when it configures none.
func httpServers(ctx caddy.Context) map[string]*caddyhttp.Server {
	app, err := ctx.AppIfConfigured("http")
	if err != nil {
		return nil
	}
	if httpApp, ok := app.(*caddyhttp.App); ok {
		return httpApp.Servers
	}
	return nil
}
