package admin

import (
	"reflect"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// JSON Schema helpers for the OpenAPI document (OpenAPI 3.1 uses JSON
// Schema 2020-12, so nullable types are type arrays).

type schema = map[string]any

func ref(name string) schema { return schema{"$ref": "#/components/schemas/" + name} }

func typ(t string, desc string) schema {
	s := schema{"type": t}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func str(desc string) schema     { return typ("string", desc) }
func integer(desc string) schema { return typ("integer", desc) }
func number(desc string) schema  { return typ("number", desc) }
func boolean(desc string) schema { return typ("boolean", desc) }

func dateTime(desc string) schema {
	s := str(desc)
	s["format"] = "date-time"
	return s
}

func nullable(s schema) schema {
	out := schema{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []string{s["type"].(string), "null"}
	return out
}

func array(items schema, desc string) schema {
	s := typ("array", desc)
	s["items"] = items
	return s
}

// object builds an object schema; required lists the required properties.
func object(desc string, props schema, required ...string) schema {
	s := typ("object", desc)
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// mapOf builds an object schema whose every property is of schema values.
func mapOf(values schema, desc string) schema {
	s := typ("object", desc)
	s["additionalProperties"] = values
	return s
}

// closed forbids properties other than the listed ones.
func closed(s schema) schema {
	s["additionalProperties"] = false
	return s
}

// components returns the named schemas the document refers to.
func components() schema {
	key := object("A managed API key. Lists never show the key itself or its hash.", schema{
		"id":               str("Key id, used in the admin API and audit records."),
		"name":             str(""),
		"description":      str(""),
		"prefix":           str("The start of the key (sk_mg_ and six characters)."),
		"user_path":        str("The user path bound to the key; it overrides the user-path header. Empty when unbound."),
		"dashboard_access": boolean("Whether the key may use /admin/*."),
		"enabled":          boolean("False once deactivated."),
		"state":            schema{"type": "string", "enum": []string{"active", "deactivated", "expired"}},
		"created_at":       dateTime(""),
		"updated_at":       dateTime(""),
		"last_used_at":     nullable(dateTime("Last successful authentication; persisted about once a minute.")),
		"expires_at":       nullable(dateTime("")),
		"deactivated_at":   nullable(dateTime("")),
	}, "id", "name", "prefix", "user_path", "dashboard_access", "enabled", "state", "created_at", "updated_at")
	created := schema{"allOf": []schema{ref("ManagedKey"), object("", schema{
		"key": str("The key (sk_mg_ + 32 base62 characters). Shown only in this answer."),
	}, "key")}}
	gwErr := object("Gateway error object.", schema{
		"type": schema{"type": "string", "enum": []string{
			"provider_error", "rate_limit_error", "invalid_request_error", "authentication_error", "not_found_error"}},
		"message":     str(""),
		"code":        nullable(str("")),
		"param":       nullable(str("")),
		"provider":    str(""),
		"status_code": integer(""),
	}, "type", "message", "code", "param", "provider", "status_code")
	rateLimit := object("A rate-limit rule that applies to the caller, with live counters.", schema{
		"scope": str("user_path, provider or model."), "subject": str(""), "period": str("minute, hour, day or concurrent; absent for a custom window."),
		"period_seconds": integer("Window length; absent for concurrent rules."), "per_child": boolean(""),
		"effective_subject": str("For a per_child template, the caller's child path the counters belong to."), "max_requests": integer(""),
		"max_tokens": integer(""), "requests_used": integer(""), "tokens_used": integer(""),
		"in_flight": integer(""), "window_start": dateTime(""), "window_end": dateTime(""),
	}, "scope", "subject", "requests_used", "tokens_used", "in_flight")
	period := object("", schema{"date": str("YYYY-MM-DD, YYYY-Www, YYYY-MM or YYYY by interval."),
		"requests": integer(""), "input_tokens": integer(""), "output_tokens": integer(""),
		"total_tokens": integer(""), "cost": number("")}, "date", "requests", "input_tokens", "output_tokens", "total_tokens", "cost")
	session := withMeta(schemaOf(reflect.TypeOf(audit.SessionTotals{}), nil), "", "session_id", "user_path", "requests")
	boolMap := schema{"type": "object", "additionalProperties": schema{"type": "boolean"}}
	out := schema{
		"GatewayError":  gwErr,
		"ErrorResponse": object("", schema{"error": ref("GatewayError")}, "error"),
		"ManagedKey":    key,
		"CreatedKey":    created,
		"KeyList":       object("", schema{"keys": array(ref("ManagedKey"), "Newest first."), "server_time": dateTime("")}, "keys", "server_time"),
		"CreateKeyRequest": closed(object("", schema{
			"name":             str("Required label, at most 128 bytes."),
			"user_path":        str("User path to bind; normalized (e.g. team/alpha/ becomes /team/alpha)."),
			"dashboard_access": boolean("Default false."),
			"description":      str("At most 1024 bytes."),
			"expires_at":       nullable(dateTime("When the key stops working; must be in the future.")),
		}, "name")),
		"UpdateKeyRequest": closed(object("Partial update: absent or null fields are unchanged.", schema{
			"name":             str(""),
			"user_path":        str("An empty string unbinds the key."),
			"dashboard_access": boolean("Grant (true) or revoke (false) dashboard access."),
			"enabled":          boolean("False deactivates, true re-activates (an expired key only with a new expires_at)."),
			"expires_at":       str("RFC 3339 time in the future: when the key stops working."),
			"never_expires":    boolean("True removes the expiry time (expires_at wins over it)."),
		})),
		"UsageSummary": object("Zeroed when usage tracking is off.", schema{
			"total_requests": integer(""), "total_input_tokens": integer(""), "total_output_tokens": integer(""),
			"total_tokens": integer(""), "cached_input_tokens": integer(""), "cache_write_input_tokens": integer(""),
			"total_cost": number(""), "start_date": str("YYYY-MM-DD"), "end_date": str("YYYY-MM-DD"),
		}, "total_requests", "total_input_tokens", "total_output_tokens", "total_tokens", "cached_input_tokens",
			"cache_write_input_tokens", "total_cost", "start_date", "end_date"),
		"UsagePeriod":  period,
		"UsagePeriods": array(ref("UsagePeriod"), "Newest first; empty when usage tracking is off."),
		"UsageSession": session,
		"UsageBreakdownRow": object("The sums of one group.", schema{
			"group":    str("The user path, key id (empty for the master key or none), model, provider instance or endpoint."),
			"name":     str("The managed key's name (by=key, known keys only)."),
			"requests": integer("Requests, response-cache hits included."), "input_tokens": integer(""),
			"output_tokens": integer(""), "cached_input_tokens": integer(""), "cache_write_input_tokens": integer(""),
			"reasoning_tokens": integer(""),
			"total_cost":       nullable(number("Spend in USD; null when nothing of the group was priced.")),
			"cache_hits":       integer("Requests the response cache answered."),
			"cost_avoided":     number("What the response-cache hits would have cost, USD."),
			"errors_4xx":       integer("Requests that spent tokens (or hit the cache) and ended with a 4xx status."),
			"errors_5xx":       integer("Likewise with a 5xx status."),
			"p50_ms":           nullable(integer("Median duration, to the bucket of a fixed histogram (see docs/audit.md).")),
			"p95_ms":           nullable(integer("95th percentile duration, likewise.")),
		}, "group", "requests", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens",
			"reasoning_tokens", "total_cost", "cache_hits", "cost_avoided", "errors_4xx", "errors_5xx", "p50_ms", "p95_ms"),
		"UsageBreakdown": object("Empty rows when usage tracking is off.", schema{
			"by":         schema{"type": "string", "enum": []string{"user_path", "key", "model", "provider", "endpoint"}},
			"start_date": str("YYYY-MM-DD"), "end_date": str("YYYY-MM-DD"),
			"rows":        array(ref("UsageBreakdownRow"), "Largest cost first, then most requests, then by group."),
			"next":        nullable(str("Cursor of the next page (as after); null on the last.")),
			"server_time": dateTime(""),
		}, "by", "start_date", "end_date", "rows", "next", "server_time"),
		"UsageSessions": object("", schema{"sessions": array(ref("UsageSession"), ""), "next_cursor": nullable(str(""))}, "sessions", "next_cursor"),
		"RuntimeConfig": object("Effective switches and non-secret settings.", schema{
			"version": str(""), "api_version": str(""), "server_time": dateTime(""), "features": boolMap,
			"settings": object("", schema{
				"user_path_header": str(""), "legacy_alias": str("auto, on or off"),
				"legacy_alias_sunset": dateTime(""), "legacy_alias_served": boolean(""),
				"rate_limits_flush_interval": integer(""), "passthrough_providers": array(str(""), ""),
				"entitlements": array(str(""), ""),
				"storage":      str("bbolt or postgres: where keys, rules, budgets, virtual models, audit and usage are kept"),
				"redis":        boolean("Counters, concurrency slots, budget spend, cache entries and the live log go through Redis"),
			}),
			"providers": array(object("", schema{"name": str(""), "type": str("")}, "name", "type"), ""),
		}, "version", "api_version", "server_time", "features", "settings", "providers"),
		"RateLimitStatus": rateLimit,
		"SelfUsage": object("The caller's own view.", schema{
			"user_path": str("The caller's user path."), "server_time": dateTime(""),
			"usage": nullable(object("The caller's user path's usage (the paths below it included); zeroed when usage tracking is off, null when it could not be read.", schema{
				"today": ref("UsageTotals"), "last_30_days": ref("UsageTotals")}, "today", "last_30_days")),
			"budgets":     array(ref("BudgetEntry"), "Budget entries that apply to the caller; a template's shows the caller's child."),
			"rate_limits": array(ref("RateLimitStatus"), ""),
		}, "user_path", "server_time", "usage", "budgets", "rate_limits"),
		"ModelList": object("", schema{"object": str(""), "data": array(ref("Model"), "")}, "object", "data"),
		"Model": object("", schema{"id": str(""), "object": str(""), "created": integer(""), "owned_by": str(""),
			"metadata": ref("ModelMetadata")}, "id"),
		"ModelMetadata": object("What the model catalog knows of the model; absent when the model is not in it.", schema{
			"capabilities":   mapOf(boolean(""), "Capability (tools, vision, reasoning, ...) to whether the model has it."),
			"categories":     array(schema{"type": "string", "enum": []string{"text_generation", "embedding", "image", "audio", "video", "utility"}}, ""),
			"context_window": integer("Prompt plus completion, in tokens."), "description": str(""), "display_name": str(""),
			"family": str(""), "max_output_tokens": integer(""), "modes": array(str(""), "API modes served (chat, embedding, ...)."),
			"pricing": ref("Pricing"), "pricing_sources": mapOf(str(""), "Where the prices were taken from."),
			"rankings": mapOf(ref("Ranking"), "Leaderboard name to the model's place on it."), "tags": array(str(""), ""),
		}),
		"Pricing": object("List prices; token prices per million tokens, in currency (USD when absent).", schema{
			"audio_input_per_mtok": number(""), "audio_output_per_mtok": number(""), "batch_input_per_mtok": number(""),
			"batch_output_per_mtok": number(""), "cache_write_per_mtok": number(""), "cached_input_per_mtok": number(""),
			"currency": str(""), "input_per_image": number(""), "input_per_mtok": number(""), "output_per_mtok": number(""),
			"per_character_input": number(""), "per_image": number(""), "per_page": number(""), "per_request": number(""),
			"per_second_input": number(""), "per_second_output": number(""), "reasoning_output_per_mtok": number(""),
			"tiers": array(ref("PricingTier"), "Prices by prompt size; the first bounded tier the prompt fits decides."),
		}),
		"PricingTier": object("", schema{"input_per_mtok": number(""), "output_per_mtok": number(""), "up_to_mtok": number(""),
			"up_to_tokens": schema{"type": "integer", "minimum": 1}}),
		"Ranking": object("", schema{"as_of": str(""), "elo": number(""), "rank": integer("")}),
		"Health":  object("", schema{"status": str("")}, "status"),
		"ModelRequest": schema{"type": "object", "description": "A request body in the OpenAI shape of this endpoint; model is required.",
			"properties": schema{"model": str("A model id from GET /v1/models, or provider_name/model.")},
			"required":   []string{"model"}, "additionalProperties": true},
		"ModelResponse": schema{"type": "object", "description": "The upstream's answer in the OpenAI shape of this endpoint.", "additionalProperties": true},
		"OpenAPI":       schema{"type": "object", "description": "This document."},
	}
	for name, s := range auditSchemas() {
		out[name] = s
	}
	for name, s := range budgetSchemas() {
		out[name] = s
	}
	for name, s := range childrenSchemas() {
		out[name] = s
	}
	for name, s := range sessionLimitSchemas() {
		out[name] = s
	}
	withLimitedSchema(out["UsageSession"].(schema))
	for name, s := range rateLimitSchemas() {
		out[name] = s
	}
	for name, s := range vmodelSchemas() {
		out[name] = s
	}
	for name, s := range pricingSchemas() {
		out[name] = s
	}
	for name, s := range cacheSchemas() {
		out[name] = s
	}
	for name, s := range anthropicSchemas() {
		out[name] = s
	}
	for name, s := range batchSchemas() {
		out[name] = s
	}
	for name, s := range messageBatchSchemas() {
		out[name] = s
	}
	for name, s := range storedResponseSchemas() {
		out[name] = s
	}
	return out
}
