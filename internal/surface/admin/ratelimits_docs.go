package admin

import (
	"fmt"
	"slices"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// rateLimitSchemas are the named schemas of the rate-limit routes; their
// enums come from package limits, so the document follows the engine.
func rateLimitSchemas() schema {
	var scopes []string
	for _, s := range limits.Scopes() {
		scopes = append(scopes, string(s))
	}
	periods := []any{}
	for _, p := range limits.NamedPeriods() {
		periods = append(periods, string(p))
	}
	keyProps := func() schema {
		return schema{
			"scope": schema{"type": "string", "enum": scopes},
			"subject": str("A user path (normalized: a trailing slash is dropped; empty, \".\" and \"..\" segments are refused), " +
				"a provider instance name, or a model (provider/model or bare model id); case-insensitive for providers and models."),
			"user_path":      str("Shorthand for scope user_path with this subject."),
			"period":         schema{"type": []string{"string", "null"}, "enum": append(slices.Clone(periods), nil)},
			"period_seconds": integer(fmt.Sprintf("A custom window in seconds (1 to %d), instead of period.", limits.MaxPeriodSeconds)),
		}
	}
	write := keyProps()
	write["max_requests"] = integer("Requests per window; the in-flight cap under period concurrent. 0: none.")
	write["max_tokens"] = integer("Tokens per window (charged when each response completes). 0: none.")
	write["per_child"] = boolean("User-path rules only: a template giving each direct child path its own counters. Needs the quota_templates entitlement.")
	write["previous"] = ref("RateLimitKey")
	n := func(s schema) schema { return nullable(s) }
	rule := object("A rate-limit rule with live usage. Usage fields are null for per_child templates (no aggregate counter).", schema{
		"scope": str("user_path, provider or model."), "subject": str(""), "user_path": str("Set for user_path rules."),
		"period": n(str("minute, hour, day or concurrent; null for a custom window.")), "period_seconds": integer("Window length; 0 for concurrent."),
		"max_requests": integer(""), "max_tokens": integer(""), "per_child": boolean(""),
		"source": schema{"type": "string", "enum": []string{"manual", "config"}}, "read_only": boolean("Config rules cannot be changed through the API."),
		"requests_used": n(integer("")), "tokens_used": n(integer("")), "in_flight": n(integer("")),
		"window_start": n(dateTime("")), "window_end": n(dateTime("")),
		"children":           integer("A per_child template's row: how many children have usage (GET /admin/rate-limits/children lists them). Absent on other rows."),
		"children_exhausted": integer("A template's row: how many of those children are exhausted. Absent on other rows."),
	}, "scope", "subject", "period", "period_seconds", "max_requests", "max_tokens", "per_child", "source", "read_only",
		"requests_used", "tokens_used", "in_flight", "window_start", "window_end")
	return schema{
		"RateLimitRule": rule,
		"RateLimitList": object("", schema{"rules": array(ref("RateLimitRule"), ""), "server_time": dateTime("")}, "rules", "server_time"),
		"RateLimitKey":  closed(object("Names one rule: scope and subject (or user_path), and period or period_seconds.", keyProps())),
		"RateLimitWrite": closed(object("A manual rule. Editing only the caps keeps the counters; a changed scope, subject or period "+
			"(name the old rule in previous) restarts them.", write)),
		"RateLimitReset": closed(object("", schema{"confirmation": schema{"type": "string", "const": "reset"}}, "confirmation")),
	}
}
