package admin

import (
	"net/http"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Response headers the document names: the legacy alias's on its every
// answer, Retry-After on every 429, and the x-ratelimit-* values on a
// rate-limit refusal and on the successful answers of rate-limited routes
// (present when a rule with a request, token or concurrency cap matches).

// legacyHeaderNames are the headers of every answer on the legacy alias.
var legacyHeaderNames = []string{"Deprecation", "Sunset", "Link"}

// rateLimitHeaderNames are the x-ratelimit-* headers, by the names the
// limiter sets.
var rateLimitHeaderNames = []string{limits.HeaderLimitRequests, limits.HeaderRemainingRequests, limits.HeaderResetRequests,
	limits.HeaderLimitTokens, limits.HeaderRemainingTokens, limits.HeaderResetTokens,
	limits.HeaderLimitConcurrency, limits.HeaderRemainingConcurrency}

// headerRef refers to the named header component of name.
func headerRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/headers/" + strings.ReplaceAll(name, "-", "")}
}

// headerComponents are the named headers; the alias's Sunset is sunset.
func headerComponents(sunset time.Time) map[string]any {
	required := func(desc string, s schema) map[string]any {
		return map[string]any{"description": desc, "required": true, "schema": s}
	}
	out := map[string]any{
		"Deprecation": required("The path is a deprecated alias.", schema{"type": "string", "const": "true"}),
		"Sunset": required("When the alias stops being served (an HTTP date).",
			schema{"type": "string", "const": sunset.UTC().Format(http.TimeFormat)}),
		"Link": required("The path that replaces the alias.",
			schema{"type": "string", "pattern": `^<[^>]+>; rel="successor-version"$`}),
		"RetryAfter": required("Seconds to wait before a retry is admitted (a provider's own value, seconds or an HTTP date, as it sent it).",
			str("")),
	}
	for _, name := range rateLimitHeaderNames {
		desc := "Of the most constrained matching rule: its cap."
		switch {
		case strings.Contains(name, "Remaining"):
			desc = "Of the most constrained matching rule: what it admits now."
		case strings.Contains(name, "Reset"):
			desc = "Of the most constrained matching rule: whole seconds until its window is replenished."
		}
		out[strings.ReplaceAll(name, "-", "")] = map[string]any{"description": desc, "schema": schema{"type": "integer", "minimum": 0}}
	}
	return out
}

// responseComponents are the named error responses: the gateway error,
// in the gateway shape or the Anthropic envelope, with Retry-After on a
// 429, and on the legacy alias with its headers.
func responseComponents() map[string]any {
	body := func(name string) map[string]any {
		return map[string]any{"application/json": map[string]any{"schema": ref(name)}}
	}
	legacy := map[string]any{}
	for _, name := range legacyHeaderNames {
		legacy[name] = headerRef(name)
	}
	// A 429 always carries Retry-After; one a user-path rule refused also
	// carries that rule's x-ratelimit-* values.
	retry := map[string]any{"Retry-After": headerRef("Retry-After")}
	for _, name := range rateLimitHeaderNames {
		retry[name] = headerRef(name)
	}
	return map[string]any{
		"Error":                map[string]any{"description": "Gateway error.", "content": body("ErrorResponse")},
		"AnthropicError":       map[string]any{"description": "Gateway error in the Anthropic envelope.", "content": body("AnthropicErrorResponse")},
		"RateLimited":          map[string]any{"description": "A rate limit or budget refuses the call, or the provider did.", "headers": retry, "content": body("ErrorResponse")},
		"AnthropicRateLimited": map[string]any{"description": "RateLimited in the Anthropic envelope.", "headers": retry, "content": body("AnthropicErrorResponse")},
		"LegacyError":          map[string]any{"description": "Gateway error on the legacy alias.", "headers": legacy, "content": body("ErrorResponse")},
	}
}

// errorResponse refers to the named response of an error status (or
// range) of op.
func errorResponse(op Operation, status string) map[string]any {
	name := "Error"
	switch {
	case op.legacy:
		name = "LegacyError"
	case status == "429":
		name = "RateLimited"
	}
	if apierr.AnthropicEnvelope(op.Path) {
		name = "Anthropic" + name
	}
	return map[string]any{"$ref": "#/components/responses/" + name}
}

// successHeaders are the headers of op's successful answer: the legacy
// alias's, or the x-ratelimit-* values on a rate-limited route; nil for
// none.
func successHeaders(op Operation) map[string]any {
	var names []string
	switch {
	case op.legacy:
		names = legacyHeaderNames
	case op.route.RateLimit != routes.CountNone:
		names = rateLimitHeaderNames
	}
	if names == nil {
		return nil
	}
	out := map[string]any{}
	for _, name := range names {
		out[name] = headerRef(name)
	}
	return out
}
