package admin

import (
	"reflect"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/selfusage"
)

// entryDescriptions describe some properties of the audit entry and its
// parts, by JSON name.
var entryDescriptions = map[string]string{
	"status_code":      "0 when the client left before a status was sent.",
	"auth_method":      "master_key, api_key or none.",
	"provider":         "Provider type.",
	"provider_name":    "Provider instance.",
	"cache_type":       `"exact" for a response-cache hit, else empty.`,
	"principal_id":     `"master" for the master key, the key id for a managed key.`,
	"auth_key_name":    "The managed key's current name; empty for the master key, no key, or a deleted key.",
	"bodies_omitted":   "The bodies were not recorded (LOGGING_LOG_BODIES off).",
	"secrets_redacted": "How many credentials were replaced by [REDACTED:<kind>] in the recorded bodies (LOGGING_REDACT_SECRETS).",
	"usage":            "The usage object: token counts of the request and what is derived from them.",
	"cost":             "What the request cost: the provider's reported price when it reports one, else the catalog's; null when unknown (no usage, or no price). The usage record and the budgets take the same figure.",
	"input":            "The prompt's part of the cost; null when only the total is known (a provider's price for a model the catalog does not price).",
	"output":           "The completion's part of the cost; null like input.",
	"total":            "The request's cost.",
	"currency":         "The cost's currency (USD).",
	"data":             "The audit data object: redacted headers, bodies (only in single-entry and conversation answers), upstream attempts, workflow features; null when not recorded.",
	"request_body":     "The request body as recorded (JSON), or a summary of a binary one; null when not recorded.",
	"response_body":    "The response body; a stream as the final object it adds up to.",
	"attempts":         "Every upstream call of the request, in order.",
	"request_headers":  "Redacted: credentials read [REDACTED].",
}

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
	// The entry's schema is its Go type's JSON form, so it lists every
	// field the server sends.
	entry := schemaOf(reflect.TypeOf(audit.Entry{}), entryDescriptions)
	entry["description"] = "One audited request: ids, timing, status, models, provider, user path, session, " +
		"authentication, token usage and, under data, redacted headers, bodies (only in single-entry and conversation answers) and upstream attempts."
	entry["required"] = []string{"id", "timestamp", "method", "path", "status_code", "user_path"}
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
			"earlier":   boolean("Entries of the session precede the first one returned: ask again with before set to its id."),
		}, "anchor_id", "entries", "truncated", "earlier"),
		"UsageTotals": withMeta(schemaOf(reflect.TypeOf(selfusage.PeriodUsage{}), map[string]string{
			"requests": "Requests, response-cache hits included.", "cost": "Spend: priced requests that reached a provider.",
			"since": "Start of the period.",
		}), "Usage totals of a period.", "requests", "input_tokens", "output_tokens", "total_tokens", "cost", "since"),
	}
}

// withMeta sets a generated object schema's description and required
// properties.
func withMeta(s schema, desc string, required ...string) schema {
	if desc != "" {
		s["description"] = desc
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}
