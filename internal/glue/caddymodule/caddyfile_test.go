package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

// parse runs the global option parser on one `modelgate` block.
func parse(t *testing.T, input string) (*App, error) {
	t.Helper()
	v, err := parseGlobalOption(caddyfile.NewTestDispenser(input), nil)
	if err != nil {
		return nil, err
	}
	raw := v.(httpcaddyfile.App).Value
	app := new(App)
	if err := json.Unmarshal(raw, app); err != nil {
		t.Fatalf("the option's JSON does not decode: %v\n%s", err, raw)
	}
	return app, nil
}

func TestCaddyfileGlobalOption(t *testing.T) {
	app, err := parse(t, `modelgate {
		storage ./data/mg.db
		master_key mg-master
		config_file ./config.yaml
		user_path_header X-Team
		server_timing on
		max_request_body 2MiB
		gc_min_heap 32MiB
		entitlements quota_templates other
		entitlements third
		admin {
			endpoints_enabled true
			ui_enabled false
			live_logs_enabled 1
			legacy_alias off
			allow_unauthenticated 0
		}
		provider openai {
			type openai
			api_key sk-test
			base_url https://api.example.com/v1
			models gpt-4o gpt-4o-mini
			models_mode allowlist
			api_version 2024-06-01
			timeout 1500ms
		}
		provider demo {
			type mock
			latency 25ms
		}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	if app.Storage != "./data/mg.db" || app.MasterKey != "mg-master" || app.ConfigFile != "./config.yaml" ||
		app.Server.UserPathHeader != "X-Team" || app.Server.MaxRequestBodyBytes != 2<<20 ||
		app.Server.GCMinHeapBytes == nil || *app.Server.GCMinHeapBytes != 32<<20 || !app.Server.ServerTimingOn() ||
		strings.Join(app.Entitlements, ",") != "quota_templates,other,third" {
		t.Errorf("settings: %+v", app.Config)
	}
	a := app.Admin
	if a.EndpointsEnabled == nil || !*a.EndpointsEnabled || a.UIEnabled == nil || *a.UIEnabled || a.LiveLogsEnabled == nil ||
		!*a.LiveLogsEnabled || a.LegacyAlias != "off" || a.AllowUnauthenticated == nil || *a.AllowUnauthenticated {
		t.Errorf("admin: %+v", a)
	}
	if len(app.Providers) != 2 {
		t.Fatalf("providers: %+v", app.Providers)
	}
	p := app.Providers[0]
	if p.Name != "openai" || p.Type != "openai" || p.APIKey != "sk-test" || p.BaseURL != "https://api.example.com/v1" ||
		strings.Join(p.Models, ",") != "gpt-4o,gpt-4o-mini" || p.ModelsMode != "allowlist" || p.APIVersion != "2024-06-01" ||
		p.TimeoutSeconds != 2 {
		t.Errorf("provider: %+v", p)
	}
	if d := app.Providers[1]; d.Name != "demo" || d.Type != "mock" || d.LatencyMS != 25 {
		t.Errorf("mock provider: %+v", d)
	}
}

// An environment placeholder that is unset leaves master_key and api_key
// without an argument: not set, not an error.
func TestCaddyfileOptionalKeys(t *testing.T) {
	app, err := parse(t, "modelgate {\n master_key\n provider o {\n type openai\n api_key\n }\n}")
	if err != nil {
		t.Fatal(err)
	}
	if app.MasterKey != "" || app.Providers[0].APIKey != "" {
		t.Fatalf("%+v", app.Config)
	}
	if app, err := parse(t, "modelgate"); err != nil || app.Storage != "" {
		t.Fatalf("empty option: %v", err)
	}
}

func TestCaddyfileErrors(t *testing.T) {
	for name, c := range map[string]struct{ input, want string }{
		"argument on the option":    {"modelgate extra {\n}", "wrong argument count"},
		"unknown option":            {"modelgate {\n nope 1\n}", `unrecognized modelgate option "nope"`},
		"missing argument":          {"modelgate {\n storage\n}", "storage takes a bbolt file path"},
		"extra argument":            {"modelgate {\n storage a b\n}", "storage takes a bbolt file path"},
		"redis without url":         {"modelgate {\n redis\n}", "redis takes a URL"},
		"redis bad mode":            {"modelgate {\n redis redis://x maybe\n}", "neither fail_open nor fail_closed"},
		"two master keys":           {"modelgate {\n master_key a b\n}", "wrong argument count"},
		"bad size":                  {"modelgate {\n max_request_body lots\n}", `max_request_body: "lots" is not a size`},
		"zero size":                 {"modelgate {\n max_request_body 0\n}", `max_request_body: "0" is not a size`},
		"size without argument":     {"modelgate {\n max_request_body\n}", "wrong argument count"},
		"bad gc minimum heap":       {"modelgate {\n gc_min_heap lots\n}", `gc_min_heap: "lots" is not a size`},
		"bad server timing":         {"modelgate {\n server_timing loud\n}", `server_timing: "loud" is not a boolean`},
		"admin argument":            {"modelgate {\n admin x {\n }\n}", "wrong argument count"},
		"unknown admin option":      {"modelgate {\n admin {\n nope true\n }\n}", `unrecognized admin option "nope"`},
		"bad boolean":               {"modelgate {\n admin {\n ui_enabled maybe\n }\n}", `ui_enabled: "maybe" is not a boolean`},
		"boolean without argument":  {"modelgate {\n admin {\n ui_enabled\n }\n}", "wrong argument count"},
		"legacy alias without mode": {"modelgate {\n admin {\n legacy_alias\n }\n}", "wrong argument count"},
		"provider without name":     {"modelgate {\n provider {\n type openai\n }\n}", "wrong argument count"},
		"provider with two names":   {"modelgate {\n provider a b {\n }\n}", "wrong argument count"},
		"unknown provider option":   {"modelgate {\n provider a {\n colour red\n }\n}", `provider a: unrecognized option "colour"`},
		"provider type missing":     {"modelgate {\n provider a {\n type\n }\n}", "wrong argument count"},
		"bad timeout":               {"modelgate {\n provider a {\n timeout soon\n }\n}", `timeout: "soon" is not a duration`},
		"bad latency":               {"modelgate {\n provider a {\n latency -\n }\n}", `latency: "-" is not a duration`},
		"zero timeout":              {"modelgate {\n provider a {\n timeout 0s\n }\n}", `timeout: must be positive, got 0s`},
		"negative timeout":          {"modelgate {\n provider a {\n timeout -5s\n }\n}", `timeout: must be positive, got -5s`},
		"zero read idle timeout":    {"modelgate {\n provider a {\n read_idle_timeout 0\n }\n}", `read_idle_timeout: must be positive`},
		"zero response cap":         {"modelgate {\n provider a {\n max_response_body 0\n }\n}", `max_response_body: must be positive, got 0`},
		"zero event cap":            {"modelgate {\n provider a {\n max_stream_event 0B\n }\n}", `max_stream_event: must be positive, got 0`},
		"duplicate provider":        {"modelgate {\n provider a {\n type mock\n }\n provider a {\n type openai\n }\n}", `provider "a" is defined twice`},
		"price without model":       {"modelgate {\n pricing_override openai {\n }\n}", "pricing_override takes a provider and a model"},
		"unknown price field":       {"modelgate {\n pricing_override openai m {\n input 1\n }\n}", `unrecognized pricing_override field "input"`},
		"price not a number":        {"modelgate {\n pricing_override openai m {\n input_per_mtok cheap\n }\n}", `input_per_mtok: "cheap" is not a number`},
		"tier too short":            {"modelgate {\n pricing_override openai m {\n tier 1000 1\n }\n}", "tier takes"},
		"tier bad bound":            {"modelgate {\n pricing_override openai m {\n tier 0 1 2\n }\n}", `tier: "0" is not a token count`},
	} {
		_, err := parse(t, c.input)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// The option itself may appear once.
	_, err := parseGlobalOption(caddyfile.NewTestDispenser("modelgate {\n}"), httpcaddyfile.App{Name: "modelgate"})
	if err == nil || !strings.Contains(err.Error(), "only once") {
		t.Errorf("second option: %v", err)
	}
}

func TestCaddyfileNetworkedStorage(t *testing.T) {
	app, err := parse(t, `modelgate {
		storage postgres postgres://gw@db:5432/modelgate
		redis redis://cache:6379/0 fail_closed
	}`)
	if err != nil {
		t.Fatal(err)
	}
	if app.Postgres != "postgres://gw@db:5432/modelgate" || app.Storage != "" {
		t.Errorf("storage: postgres %q, bbolt %q", app.Postgres, app.Storage)
	}
	if app.Redis != "redis://cache:6379/0" || app.RedisFailClosed == nil || !*app.RedisFailClosed {
		t.Errorf("redis: %q fail_closed %v", app.Redis, app.RedisFailClosed)
	}
}

// gc_min_heap off is an explicit zero: the collector's pacing is left
// alone, which leaving the option out (the default minimum) would not do.
func TestCaddyfileGCMinHeapOff(t *testing.T) {
	app, err := parse(t, "modelgate {\n gc_min_heap off\n}")
	if err != nil {
		t.Fatal(err)
	}
	if h := app.Server.GCMinHeapBytes; h == nil || *h != 0 {
		t.Fatalf("gc_min_heap off: %v", h)
	}
}

func TestCaddyfilePricingOverride(t *testing.T) {
	app, err := parse(t, `modelgate {
		pricing_override main gpt-4o-mini {
			input_per_mtok 0.15
			per_request 0.001
			tier 200000 0.15 0.6
			tier rest 0.3 1.2
		}
		pricing_override openai gpt-4o {
			output_per_mtok 10
		}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	o := app.PricingOverrides
	if len(o) != 2 || o[0].Provider != "main" || o[0].Model != "gpt-4o-mini" || *o[0].Pricing.InputPerMTok != 0.15 ||
		*o[0].Pricing.PerRequest != 0.001 || len(o[0].Pricing.Tiers) != 2 || *o[0].Pricing.Tiers[0].UpToTokens != 200000 ||
		o[0].Pricing.Tiers[1].UpToTokens != nil || *o[0].Pricing.Tiers[1].OutputPerMTok != 1.2 ||
		o[1].Provider != "openai" || *o[1].Pricing.OutputPerMTok != 10 || o[1].Pricing.InputPerMTok != nil {
		t.Fatalf("parsed %+v", o)
	}
}
