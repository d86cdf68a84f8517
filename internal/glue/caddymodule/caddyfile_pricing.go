package caddymodule

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// parsePricingOverride parses one `pricing_override` block, a row of
// pricing_overrides:
//
//	pricing_override <provider> <model> {
//		<price field> <number>          # input_per_mtok, output_per_mtok, cached_input_per_mtok, per_request, ...
//		tier <up_to_tokens>|rest <input_per_mtok> <output_per_mtok>
//	}
//
// A price field is any number field of the catalog's pricing object; tier
// lines add tiers in order, "rest" being the unbounded one.
func parsePricingOverride(d *caddyfile.Dispenser) (config.PricingOverride, error) {
	var o config.PricingOverride
	args := d.RemainingArgs()
	if len(args) != 2 {
		return o, d.Err("pricing_override takes a provider and a model")
	}
	o.Provider, o.Model = args[0], args[1]
	fields := pricingFields(&o.Pricing)
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if name == "tier" {
			a := d.RemainingArgs()
			if len(a) != 3 {
				return o, d.Err("tier takes <up_to_tokens>|rest <input_per_mtok> <output_per_mtok>")
			}
			var t catalog.Tier
			if a[0] != "rest" {
				n, err := strconv.ParseInt(a[0], 10, 64)
				if err != nil || n < 1 {
					return o, d.Errf("tier: %q is not a token count of at least 1, or rest", a[0])
				}
				t.UpToTokens = &n
			}
			for i, dst := range []**float64{&t.InputPerMTok, &t.OutputPerMTok} {
				v, err := strconv.ParseFloat(a[i+1], 64)
				if err != nil {
					return o, d.Errf("tier: %q is not a number", a[i+1])
				}
				*dst = &v
			}
			o.Pricing.Tiers = append(o.Pricing.Tiers, t)
			continue
		}
		dst, ok := fields[name]
		if !ok {
			return o, d.Errf("unrecognized pricing_override field %q", name)
		}
		arg, err := oneArg(d)
		if err != nil {
			return o, err
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			return o, d.Errf("%s: %q is not a number", name, arg)
		}
		*dst = &v
	}
	return o, nil
}

// pricingFields maps the JSON name of every price field of p to it.
func pricingFields(p *catalog.Pricing) map[string]**float64 {
	out := map[string]**float64{}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if fp, ok := f.Addr().Interface().(**float64); ok {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			out[name] = fp
		}
	}
	return out
}
