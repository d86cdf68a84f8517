package caddymodule

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/logging" // the filter encoder
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
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

// TestAccessLoggerNames: a server's access entries go to the loggers it
// maps hosts to and to its default logger when it names one or maps no
// host; a server that skips unmapped hosts writes no default entries.
func TestAccessLoggerNames(t *testing.T) {
	names := accessLoggerNames(map[string]*caddyhttp.Server{
		"catchall": {Logs: &caddyhttp.ServerLogConfig{DefaultLoggerName: "log0"}},
		"hosts":    {Logs: &caddyhttp.ServerLogConfig{LoggerNames: map[string]caddyhttp.StringArray{"a.example": {"log1", "log2"}}}},
		"skip": {Logs: &caddyhttp.ServerLogConfig{DefaultLoggerName: "log3", SkipUnmappedHosts: true,
			LoggerNames: map[string]caddyhttp.StringArray{"b.example": {"log4"}}}},
		"all":   {Logs: &caddyhttp.ServerLogConfig{}},
		"quiet": {},
	})
	want := "http.log.access,http.log.access.log0,http.log.access.log1,http.log.access.log2,http.log.access.log4"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("logger names %s, want %s", got, want)
	}
}

// TestAccepts follows Caddy's include and exclude rules: what the
// Caddyfile adapter writes for a site log (the default log excludes it,
// the site log includes only it), parents, and the longest namespace
// winning.
func TestAccepts(t *testing.T) {
	const site = "http.log.access.log0"
	for _, c := range []struct {
		include, exclude []string
		name             string
		want             bool
	}{
		{nil, nil, site, true},
		{nil, []string{site}, site, false},
		{nil, []string{site}, "http.log.access.log1", true},
		{nil, []string{site}, "http.log.access", true},
		{[]string{site}, nil, site, true},
		{[]string{site}, nil, "http.log.access.log01", false},
		{[]string{"http.log.access"}, nil, site, true},
		{[]string{"http"}, []string{"http.log.access"}, site, false},
		{[]string{"http.log.access"}, []string{"http"}, site, true},
		{nil, []string{"*"}, site, false},
		{[]string{"admin"}, nil, site, false},
	} {
		if got := accepts(c.include, c.exclude, c.name); got != c.want {
			t.Errorf("include %v exclude %v, %s: %v, want %v", c.include, c.exclude, c.name, got, c.want)
		}
	}
}

// provisionLogs provisions a Caddy configuration of logs (JSON) and
// servers, without starting it, and returns its context.
func provisionLogs(t *testing.T, logs, servers string) caddy.Context {
	t.Helper()
	var cfg caddy.Config
	if err := json.Unmarshal([]byte(`{"logging":{"logs":`+logs+`},"apps":{"http":{"servers":`+servers+`}}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	ctx, err := caddy.ProvisionContext(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// filterLog is a site log (JSON) that writes into a discarding buffer
// and deletes the named request headers.
func filterLog(logger string, headers ...string) string {
	fields := make([]string, len(headers))
	for i, h := range headers {
		fields[i] = `"request>headers>` + h + `":{"filter":"delete"}`
	}
	return `{"writer":{"output":"stderr"},"include":["http.log.access.` + logger + `"],` +
		`"encoder":{"format":"filter","wrap":{"format":"console"},"fields":{` + strings.Join(fields, ",") + `}}}`
}

// TestWarnAccessLogs: the start-up warning reads the running logs. A site
// log whose filter deletes every credential header, with the default log
// excluding it as the Caddyfile adapter writes, draws no warning; a log
// missing one delete (here Xi-Api-Key), or without a filter, is named in
// the warning.
func TestWarnAccessLogs(t *testing.T) {
	all := []string{"X-Api-Key", "Api-Key", "Xi-Api-Key", "X-Goog-Api-Key", "Sec-Websocket-Protocol"}
	const server = `{"srv0":{"listen":["127.0.0.1:1"],"automatic_https":{"disable":true},"logs":{"default_logger_name":"log0"}},
		"srv1":{"listen":["127.0.0.1:2"],"automatic_https":{"disable":true},"logs":{"logger_names":{"a.example":["log1"]}}}}`
	for _, c := range []struct {
		name, logs string
		want       string // the logs named, "" for no warning
	}{
		{"every header deleted", `{"default":{"exclude":["http.log.access.log0","http.log.access.log1"]},` +
			`"log0":` + filterLog("log0", all...) + `,"log1":` + filterLog("log1", all...) + `}`, ""},
		{"xi-api-key kept", `{"default":{"exclude":["http.log.access.log0","http.log.access.log1"]},` +
			`"log0":` + filterLog("log0", all...) + `,"log1":` + filterLog("log1", all[:2]...) + `}`, "log1"},
		{"no filter", `{"default":{"exclude":["http.log.access.log0","http.log.access.log1"]},` +
			`"log0":{"writer":{"output":"stderr"},"include":["http.log.access.log0"]},"log1":` + filterLog("log1", all...) + `}`, "log0"},
		{"default log takes them", `{"log0":` + filterLog("log0", all...) + `,"log1":` + filterLog("log1", all...) + `}`, "default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := provisionLogs(t, c.logs, server)
			core, seen := observer.New(zap.WarnLevel)
			warnAccessLogs(ctx, httpServers(ctx), zap.New(core))
			warned := seen.FilterMessageSnippet("access logging is on").All()
			switch {
			case c.want == "" && len(warned) != 0:
				t.Errorf("warned: %v", warned[0].ContextMap())
			case c.want != "" && len(warned) != 1:
				t.Errorf("%d warnings, want one naming %s", len(warned), c.want)
			case c.want != "":
				if got := fmt.Sprint(warned[0].ContextMap()["logs"]); got != "["+c.want+"]" {
					t.Errorf("warning names the logs %s, want [%s]", got, c.want)
				}
				if !strings.Contains(warned[0].Message, "request>headers>Xi-Api-Key") {
					t.Errorf("warning does not name Xi-Api-Key: %s", warned[0].Message)
				}
			}
		})
	}
}

// TestEncoderKeepsCredentials: the probe sees a header value an encoder
// writes, and none once a filter deletes or replaces every credential
// header.
func TestEncoderKeepsCredentials(t *testing.T) {
	if !encoderKeepsCredentials(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())) {
		t.Error("a plain JSON encoder hides the credential headers")
	}
	ctx := provisionLogs(t, `{"log0":`+filterLog("log0", "X-Api-Key", "Api-Key", "Xi-Api-Key", "X-Goog-Api-Key", "Sec-Websocket-Protocol")+`}`, `{}`)
	logs, ok := provisionedLogs(ctx)
	if !ok || logs["log0"] == nil || logs["default"] == nil {
		t.Fatalf("the provisioned logs cannot be read: %v %v", logs, ok)
	}
	enc, ok := logEncoder(logs["log0"])
	if !ok {
		t.Fatal("the encoder of a provisioned log cannot be read")
	}
	if encoderKeepsCredentials(enc) {
		t.Error("the filter deletes every credential header, yet the probe saw one")
	}
}
