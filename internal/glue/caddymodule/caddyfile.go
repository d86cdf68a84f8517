package caddymodule

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/dustin/go-humanize"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/platform/config"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("modelgate", parseGlobalOption)
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*App)(nil)

// parseGlobalOption parses the `modelgate` global option (see
// App.UnmarshalCaddyfile) into the modelgate app's JSON. The option may
// appear once.
func parseGlobalOption(d *caddyfile.Dispenser, existing any) (any, error) {
	if existing != nil {
		return nil, d.Err("the modelgate global option may appear only once")
	}
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "modelgate", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from the `modelgate` global option
// block:
//
//	modelgate {
//		storage          <path> | postgres <dsn>
//		redis            <url> [fail_open|fail_closed]
//		master_key       [<key>]
//		config_file      <path>
//		user_path_header <header>
//		max_request_body <size>
//		read_body_timeout <duration>
//		gc_min_heap      <size> | off
//		entitlements     <name...>
//		secret_policy    <user_path> block|mask|allow
//		admin {
//			endpoints_enabled     <bool>
//			ui_enabled            <bool>
//			live_logs_enabled     <bool>
//			legacy_alias          auto|on|off
//			allow_unauthenticated <bool>
//		}
//		provider <name> {
//			type        <type>
//			api_key     [<key>]
//			base_url    <url>
//			models      <id...>
//			models_mode fallback|allowlist
//			api_version <version>
//			timeout     <duration>
//			latency     <duration>
//			read_idle_timeout <duration>
//			max_response_body <size>
//			max_stream_event  <size>
//		}
//		pricing_override <provider> <model> {
//			<price field> <number>
//			tier <up_to_tokens>|rest <input_per_mtok> <output_per_mtok>
//		}
//	}
//
// master_key and api_key take an optional argument, so that an unset
// environment variable ({$GATEWAY_MASTER_KEY}) means "not set". A
// provider name may be defined once; unknown options are errors. See
// parsePricingOverride for pricing_override.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		var err error
		switch d.Val() {
		case "storage":
			err = parseStorage(d, &a.Config)
		case "redis":
			err = parseRedis(d, &a.Config)
		case "master_key":
			a.MasterKey, err = optionalArg(d)
		case "config_file":
			a.ConfigFile, err = oneArg(d)
		case "user_path_header":
			a.Server.UserPathHeader, err = oneArg(d)
		case "server_timing":
			a.Server.ServerTiming, err = boolArg(d)
		case "max_request_body":
			var v string
			if v, err = oneArg(d); err == nil {
				var n uint64
				if n, err = humanize.ParseBytes(v); err != nil || n == 0 {
					return d.Errf("max_request_body: %q is not a size: give a positive byte count such as 10MB, 512KiB or 1048576", v)
				}
				a.Server.MaxRequestBodyBytes = int64(n)
			}
		case "gc_min_heap":
			var v string
			if v, err = oneArg(d); err == nil {
				var n uint64
				if v != "off" {
					if n, err = humanize.ParseBytes(v); err != nil || n > 1<<40 {
						return d.Errf("gc_min_heap: %q is not a size: give a byte count such as 32MiB, or off", v)
					}
				}
				h := int64(n)
				a.Server.GCMinHeapBytes = &h
			}
		case "read_body_timeout":
			var dur time.Duration
			if dur, err = durationArg(d); err == nil {
				if dur <= 0 {
					return d.Errf("read_body_timeout must be positive, got %s", dur)
				}
				a.ReadBodyTimeout = caddy.Duration(dur)
			}
		case "entitlements":
			a.Entitlements = append(a.Entitlements, d.RemainingArgs()...)
		case "secret_policy":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Err("secret_policy takes a user path and block, mask or allow")
			}
			a.SecretPolicies = append(a.SecretPolicies, config.SecretPolicy{UserPath: args[0], Action: audit.SecretAction(args[1])})
		case "admin":
			err = parseAdmin(d, &a.Admin)
		case "pricing_override":
			var o config.PricingOverride
			if o, err = parsePricingOverride(d); err == nil {
				a.PricingOverrides = append(a.PricingOverrides, o)
			}
		case "provider":
			var p config.Provider
			if p, err = parseProvider(d); err == nil {
				if _, dup := a.Providers.Get(p.Name); dup {
					return d.Errf("provider %q is defined twice", p.Name)
				}
				a.Providers = append(a.Providers, p)
			}
		default:
			return d.Errf("unrecognized modelgate option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func oneArg(d *caddyfile.Dispenser) (string, error) {
	name := d.Val()
	if !d.NextArg() {
		return "", d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.Errf("%s takes one argument", name)
	}
	return v, nil
}

// optionalArg is oneArg for settings usually filled from an environment
// placeholder such as {$GATEWAY_MASTER_KEY}: when the variable is unset the
// token vanishes, which means "not set" rather than a syntax error.
func optionalArg(d *caddyfile.Dispenser) (string, error) {
	args := d.RemainingArgs()
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		return args[0], nil
	}
	return "", d.ArgErr()
}

// boolArg reads a switch: a boolean, or on or off.
func boolArg(d *caddyfile.Dispenser) (*bool, error) {
	name := d.Val()
	v, err := oneArg(d)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(v) {
	case "on":
		v = "true"
	case "off":
		v = "false"
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, d.Errf("%s: %q is not a boolean", name, v)
	}
	return &b, nil
}

func durationArg(d *caddyfile.Dispenser) (time.Duration, error) {
	name := d.Val()
	v, err := oneArg(d)
	if err != nil {
		return 0, err
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil {
		return 0, d.Errf("%s: %q is not a duration: %v", name, v, err)
	}
	return dur, nil
}

// positiveDurationArg reads one duration argument that must be above
// zero: these settings take their default when unset, so a zero or
// negative value would otherwise be silently replaced by the default.
func positiveDurationArg(d *caddyfile.Dispenser) (time.Duration, error) {
	name := d.Val()
	dur, err := durationArg(d)
	if err == nil && dur <= 0 {
		return 0, d.Errf("%s: must be positive, got %s (leave it out for the default)", name, dur)
	}
	return dur, err
}

// positiveSizeArg reads one byte-size argument that must be above zero,
// for the same reason as positiveDurationArg.
func positiveSizeArg(d *caddyfile.Dispenser) (int64, error) {
	name := d.Val()
	n, err := sizeArg(d)
	if err == nil && n == 0 {
		return 0, d.Errf("%s: must be positive, got 0 (leave it out for the default)", name)
	}
	return n, err
}

// sizeArg reads one byte-size argument such as 64MiB or 1000000.
func sizeArg(d *caddyfile.Dispenser) (int64, error) {
	name := d.Val()
	v, err := oneArg(d)
	if err != nil {
		return 0, err
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n > 1<<62 {
		return 0, d.Errf("%s: %q is not a size", name, v)
	}
	return int64(n), nil
}

func parseAdmin(d *caddyfile.Dispenser, a *config.Admin) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "endpoints_enabled":
			a.EndpointsEnabled, err = boolArg(d)
		case "ui_enabled":
			a.UIEnabled, err = boolArg(d)
		case "live_logs_enabled":
			a.LiveLogsEnabled, err = boolArg(d)
		case "allow_unauthenticated":
			a.AllowUnauthenticated, err = boolArg(d)
		case "legacy_alias":
			a.LegacyAlias, err = oneArg(d)
		default:
			return d.Errf("unrecognized admin option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseProvider(d *caddyfile.Dispenser) (config.Provider, error) {
	var p config.Provider
	if !d.NextArg() {
		return p, d.ArgErr()
	}
	p.Name = d.Val()
	if d.NextArg() {
		return p, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "type":
			p.Type, err = oneArg(d)
		case "api_key":
			p.APIKey, err = optionalArg(d)
		case "base_url":
			p.BaseURL, err = oneArg(d)
		case "models":
			p.Models = append(p.Models, d.RemainingArgs()...)
		case "models_mode":
			p.ModelsMode, err = oneArg(d)
		case "api_version":
			p.APIVersion, err = oneArg(d)
		case "timeout":
			var dur time.Duration
			if dur, err = positiveDurationArg(d); err == nil {
				p.TimeoutSeconds = int((dur + time.Second - 1) / time.Second)
			}
		case "latency":
			var dur time.Duration
			if dur, err = durationArg(d); err == nil {
				p.LatencyMS = int(dur / time.Millisecond)
			}
		case "read_idle_timeout":
			var dur time.Duration
			if dur, err = positiveDurationArg(d); err == nil {
				p.ReadIdleTimeoutMS = int((dur + time.Millisecond - 1) / time.Millisecond)
			}
		case "max_response_body":
			p.MaxResponseBytes, err = positiveSizeArg(d)
		case "max_stream_event":
			p.MaxEventBytes, err = positiveSizeArg(d)
		default:
			return p, d.Errf("provider %s: unrecognized option %q", p.Name, d.Val())
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// parseStorage reads `storage <path>` (the bbolt file) or
// `storage postgres <dsn>`.
func parseStorage(d *caddyfile.Dispenser, c *config.Config) error {
	args := d.RemainingArgs()
	switch {
	case len(args) == 1:
		c.Storage = args[0]
	case len(args) == 2 && args[0] == "postgres":
		c.Postgres = args[1]
	default:
		return d.Err("storage takes a bbolt file path, or postgres and a connection string")
	}
	return nil
}

// parseRedis reads `redis <url> [fail_open|fail_closed]`.
func parseRedis(d *caddyfile.Dispenser, c *config.Config) error {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return d.Err("redis takes a URL and optionally fail_open or fail_closed")
	}
	c.Redis = args[0]
	if len(args) == 2 {
		switch args[1] {
		case "fail_open", "fail_closed":
			closed := args[1] == "fail_closed"
			c.RedisFailClosed = &closed
		default:
			return d.Errf("redis: %q is neither fail_open nor fail_closed", args[1])
		}
	}
	return nil
}
