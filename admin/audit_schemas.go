package admin

// auditSchemas returns the schemas of the audit-log answers.
func auditSchemas() schema {
	counts := schema{"requests": integer(""), "status_2xx": integer(""), "status_4xx": integer(""),
		"status_5xx": integer(""), "status_other": integer("")}
	bucket := schema{"start": dateTime("The bucket's start.")}
	summary := schema{"success_rate": number("status_2xx / requests, 0 to 1; 0 without requests."),
		"avg_duration_ms": number("Mean duration, in milliseconds, of the successful (2xx) requests that reached a provider, response-cache hits excluded; 0 without any.")}
	for k, v := range counts {
		bucket[k], summary[k] = v, v
	}
	entry := schema{"type": "object", "additionalProperties": true,
		"description": "One audited request: ids, timing, status, models, provider, user path, session, " +
			"authentication, token usage and, under data, redacted headers, bodies (only in single-entry and conversation answers) and upstream attempts.",
		"properties": schema{
			"id": str(""), "request_id": str(""), "session_id": str(""), "timestamp": dateTime(""),
			"method": str(""), "path": str(""), "status_code": integer("0 when the client left before a status was sent."),
			"duration_ns": integer(""), "stream": boolean(""), "alias_used": boolean(""),
			"auth_method": str("master_key, api_key or none."), "auth_key_id": str(""),
			"provider": str("Provider type."), "provider_name": str("Provider instance."),
			"requested_model": str(""), "resolved_model": str(""), "user_path": str(""),
			"cache_type": str(`"exact" for a response-cache hit, else empty.`), "error_type": str(""),
			"usage": schema{"type": "object", "description": "Token counts of the request."},
			"data":  schema{"type": []string{"object", "null"}, "description": "Details: headers, bodies, attempts, workflow features."},
		},
		"required": []string{"id", "timestamp", "method", "path", "status_code", "user_path"}}
	return schema{
		"AuditEntry": entry,
		"AuditLogPage": object("Empty when audit logging is off.", schema{
			"entries": array(ref("AuditEntry"), "Newest first, without bodies."),
			"total":   integer("Matches on every page."), "limit": integer(""), "offset": integer(""),
		}, "entries", "total", "limit", "offset"),
		"AuditStats": object("Zero-filled buckets when audit logging is off.", schema{
			"interval": schema{"type": "string", "enum": []string{"hour", "day"},
				"description": "hour for a window of up to 3 days, else day."},
			"buckets": array(object("", bucket, "start", "requests", "status_2xx", "status_4xx", "status_5xx", "status_other"),
				"From the window's start up to now, empty ones as zeros."),
			"summary": object("", summary, "requests", "status_2xx", "status_4xx", "status_5xx", "status_other", "success_rate", "avg_duration_ms"),
			"provider_latency": array(object("Element i belongs to bucket i.", schema{
				"provider":        str("Provider instance."),
				"requests":        array(integer(""), "Successful provider-bound requests (no cache hits) per bucket."),
				"avg_duration_ms": array(nullable(number("")), "Their mean duration per bucket; null where there is none."),
			}, "provider", "requests", "avg_duration_ms"), ""),
		}, "interval", "buckets", "summary", "provider_latency"),
		"Conversation": object("The anchor's session under its user path, in time order.", schema{
			"anchor_id": str(""),
			"entries":   array(ref("AuditEntry"), "With bodies."),
			"truncated": boolean("The session has more entries than returned."),
		}, "anchor_id", "entries", "truncated"),
		"UsageTotals": object("Usage totals of a period.", schema{
			"requests": integer("Requests, response-cache hits included."), "input_tokens": integer(""),
			"output_tokens": integer(""), "total_tokens": integer(""), "cached_input_tokens": integer(""),
			"cache_write_input_tokens": integer(""), "cost": number("Spend: priced requests that reached a provider."),
			"since": dateTime("Start of the period."),
		}, "requests", "input_tokens", "output_tokens", "total_tokens", "cost", "since"),
	}
}
