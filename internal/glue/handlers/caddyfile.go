package handlers

import (
	"encoding/json"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// chain is the order of the request path: the admin API answers right
// after authentication, so admin calls are neither audited as model
// traffic nor rate-limited; the audit stage reads the body once; the
// virtual-model stage resolves the request into its plan; the response
// cache answers from the plan (hits are audited) before rate limits and
// budgets (hits count nothing there), which refuse by the plan's target.
var chain = []string{
	"modelgate_auth",
	"modelgate_admin",
	"modelgate_audit",
	"modelgate_virtual_model",
	"modelgate_cache",
	"modelgate_rate_limit",
	"modelgate_provider_proxy",
}

func init() {
	for _, name := range chain {
		httpcaddyfile.RegisterHandlerDirective(name, parseBare(name))
		httpcaddyfile.RegisterDirectiveOrder(name, httpcaddyfile.Before, "reverse_proxy")
	}
	httpcaddyfile.RegisterDirective("modelgate", parseModelgate)
	httpcaddyfile.RegisterDirectiveOrder("modelgate", httpcaddyfile.Before, "reverse_proxy")
}

// parseBare parses a chain directive, which takes no arguments or block:
//
//	modelgate_auth [<matcher>]
func parseBare(name string) httpcaddyfile.UnmarshalHandlerFunc {
	return func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		if h.NextArg() || h.NextBlock(0) {
			return nil, h.Errf("%s takes no arguments", name)
		}
		mod, err := caddy.GetModule("http.handlers." + name)
		if err != nil {
			return nil, err
		}
		return mod.New().(caddyhttp.MiddlewareHandler), nil
	}
}

// parseModelgate expands the `modelgate` site directive to the whole chain,
// as one route:
//
//	modelgate [<matcher>]
func parseModelgate(h httpcaddyfile.Helper) ([]httpcaddyfile.ConfigValue, error) {
	h.Next()                                 // directive name
	matcherSet, err := h.ExtractMatcherSet() // drops the matcher token and rewinds
	if err != nil {
		return nil, err
	}
	h.Next() // directive name again
	if h.NextArg() || h.NextBlock(0) {
		return nil, h.Err("modelgate takes no arguments; configure it in the global modelgate option")
	}
	handlers := make([]json.RawMessage, len(chain))
	for i, name := range chain {
		handlers[i] = caddyconfig.JSONModuleObject(struct{}{}, "handler", name, nil)
	}
	// One route holding the seven handlers, not a subroute around them:
	// a subroute compiles its route list again on every request.
	var matcherSets []caddy.ModuleMap
	if matcherSet != nil {
		matcherSets = append(matcherSets, matcherSet)
	}
	return []httpcaddyfile.ConfigValue{{Class: "route", Value: caddyhttp.Route{MatcherSetsRaw: matcherSets, HandlersRaw: handlers}}}, nil
}
