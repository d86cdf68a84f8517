package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestOpenHostsAllowed: an open gateway serves a Host that is a loopback
// name or address, with any port, or a name of its sites (exact or
// matching a wildcard label by label); any other name, a name that merely
// ends like a site's, and an empty Host are refused.
func TestOpenHostsAllowed(t *testing.T) {
	t.Setenv("MG_TEST_SITE", "env.example")
	s := newOpenHosts([]string{"Gateway.Example.COM", "*.lan.example", "{env.MG_TEST_SITE}", "{http.request.host}", ""})
	for host, want := range map[string]bool{
		"localhost":                  true,
		"localhost:8080":             true,
		"LOCALHOST:8080":             true,
		"localhost.":                 true,
		"app.localhost:3000":         true,
		"127.0.0.1":                  true,
		"127.0.0.1:8080":             true,
		"127.9.8.7:1":                true,
		"[::1]:8080":                 true,
		"[::1]":                      true,
		"::1":                        true,
		"[::ffff:127.0.0.1]:8080":    true,
		"gateway.example.com":        true,
		"GATEWAY.example.com:443":    true,
		"gpu.lan.example:8080":       true,
		"env.example":                true,
		"attacker.example":           false,
		"attacker.example:8080":      false,
		"localhost.attacker.example": false,
		"evilgateway.example.com":    false,
		"a.gpu.lan.example":          false,
		"lan.example":                false,
		"10.0.0.7:8080":              false,
		"0.0.0.0:8080":               false,
		"[2001:db8::1]:8080":         false,
		"":                           false,
		":8080":                      false,
	} {
		if got := s.allowed(host); got != want {
			t.Errorf("Host %q: %v, want %v", host, got, want)
		}
	}
	var none *openHosts
	if !none.allowed("localhost:1") || none.allowed("gateway.example.com") {
		t.Error("no site names: only the loopback names may pass")
	}
}

// TestSiteHosts: the names come from every host matcher of the http
// app's routes, nested subroutes and error routes included, sorted and
// without repeats; routes without one add nothing.
func TestSiteHosts(t *testing.T) {
	sub := &caddyhttp.Subroute{Routes: caddyhttp.RouteList{
		{MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchHost{"inner.example"}}}},
	}}
	servers := map[string]*caddyhttp.Server{
		"srv0": {Routes: caddyhttp.RouteList{
			{MatcherSets: caddyhttp.MatcherSets{{&caddyhttp.MatchHost{"b.example", "a.example"}}}},
			{MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchPath{"/x"}}}, Handlers: []caddyhttp.MiddlewareHandler{sub}},
			{},
		}},
		"srv1": {
			Routes: caddyhttp.RouteList{{MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchHost{"a.example"}}}}},
			Errors: &caddyhttp.HTTPErrorConfig{Routes: caddyhttp.RouteList{
				{MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchHost{"err.example"}}}},
			}},
		},
		"nil": nil,
	}
	if got := strings.Join(siteHosts(servers), ","); got != "a.example,b.example,err.example,inner.example" {
		t.Errorf("site hosts %s", got)
	}
	if got := siteHosts(nil); len(got) != 0 {
		t.Errorf("no servers: %v", got)
	}
}

// TestSiteHostsFromProvisionedConfig: a Caddyfile's site addresses reach
// siteHosts once Caddy has provisioned the http app: the host of
// "gateway.example.com:8080" does, a site on a bare port names none.
func TestSiteHostsFromProvisionedConfig(t *testing.T) {
	cfgJSON := `{"apps":{"http":{"servers":{
		"named":{"listen":["127.0.0.1:1"],"automatic_https":{"disable":true},"routes":[{"match":[{"host":["gateway.example.com"]}],"handle":[{"handler":"subroute","routes":[
			{"match":[{"host":["api.gateway.example.com"]}],"handle":[{"handler":"static_response","body":"x"}]}]}]}]},
		"bare":{"listen":["127.0.0.1:2"],"automatic_https":{"disable":true},"routes":[{"handle":[{"handler":"static_response","body":"x"}]}]}}}}}`
	var cfg caddy.Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		t.Fatal(err)
	}
	ctx, err := caddy.ProvisionContext(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(siteHosts(httpServers(ctx)), ",")
	if got != "api.gateway.example.com,gateway.example.com" {
		t.Errorf("site hosts %s", got)
	}
}
