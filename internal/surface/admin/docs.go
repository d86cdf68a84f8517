package admin

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/routes"
)

// operation describes one operation from its route's Doc.
func (h *Handler) operation(op Operation) map[string]any {
	rt, d := op.route, op.route.Doc
	id, tag := rt.ID, d.Tag
	if rt.Method == routes.Any {
		id += idSuffix(strings.ToLower(op.Method))
	}
	if op.legacy {
		id += "Legacy"
		if rest := strings.TrimPrefix(op.Path, LegacyPrefix); legacyMoved[rest] != "" {
			id += idSuffix(rest)
		}
		tag = "legacy"
	}
	out := map[string]any{"operationId": id, "summary": d.Summary, "tags": []string{tag}}
	if op.legacy {
		out["deprecated"] = true
		out["description"] = "Deprecated alias of " + successor(op.Path) + "; answers carry Deprecation, Sunset and Link headers, and 410 after the sunset."
	}
	var params []map[string]any
	for _, seg := range strings.Split(op.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params = append(params, map[string]any{"name": seg[1 : len(seg)-1], "in": "path", "required": true, "schema": str("")})
		}
	}
	for _, q := range d.Query {
		params = append(params, map[string]any{"name": q.Name, "in": "query", "required": false, "description": q.Desc, "schema": paramSchema(q)})
	}
	if rt.Credential == routes.CredentialKey {
		params = append(params, map[string]any{"name": h.opts.Config.Server.UserPathHeader, "in": "header", "required": false,
			"description": "The caller's user path (e.g. /team/alpha). A managed key bound to a path overrides it.", "schema": str("")})
	}
	if params != nil {
		out["parameters"] = params
	}
	if d.Body != "" {
		out["requestBody"] = map[string]any{"required": true,
			"content": map[string]any{mediaType(d.BodyType): map[string]any{"schema": ref(d.Body)}}}
	}
	ok := success(d)
	if hdrs := successHeaders(op); hdrs != nil {
		ok["headers"] = hdrs
	}
	responses := map[string]any{strconv.Itoa(d.Status): ok}
	errs := append([]int(nil), d.Errors...)
	if d.Body != "" {
		// A body not sent whole within read_body_timeout.
		errs = append(errs, http.StatusRequestTimeout)
	}
	switch rt.Credential {
	case routes.CredentialNone:
		out["security"] = []map[string]any{}
	case routes.CredentialAdmin:
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	default:
		errs = append(errs, http.StatusUnauthorized)
	}
	if op.legacy {
		errs = append(errs, http.StatusGone)
	}
	for _, s := range errs {
		responses[strconv.Itoa(s)] = errorResponse(op, strconv.Itoa(s))
	}
	if d.PassesUpstream {
		responses["4XX"] = errorResponse(op, "4XX")
		responses["5XX"] = errorResponse(op, "5XX")
	}
	if d.Relays {
		responses["default"] = map[string]any{"description": "The provider's answer, relayed with its status, headers and body; " +
			"or a gateway error when the gateway refuses the call (404: passthrough is not enabled for the provider, " +
			"429: a rate limit, 502: the provider is unreachable, 504: it did not answer in time)."}
	}
	out["responses"] = responses
	return out
}

// success describes an operation's success response.
func success(d *routes.Doc) map[string]any {
	desc := http.StatusText(d.Status)
	if d.Result == "" && d.ResultType == "" {
		return map[string]any{"description": desc}
	}
	content := map[string]any{}
	if d.Result != "" {
		content[mediaType(d.ResultType)] = map[string]any{"schema": ref(d.Result)}
	} else {
		content[d.ResultType] = unstructured(d.ResultType)
	}
	for _, t := range d.AltTypes {
		content[t] = unstructured(t)
	}
	if d.Streams {
		content["text/event-stream"] = map[string]any{"schema": str("Server-sent events, one chunk per event, when the request asks for a stream.")}
	}
	return map[string]any{"description": desc, "content": content}
}

// unstructured describes a body of media type t that has no named schema:
// text as a string; other bytes (audio, JSON Lines) by the media type
// alone, since a schema describes one JSON value and they are none.
func unstructured(t string) map[string]any {
	if strings.HasPrefix(t, "text/") {
		return map[string]any{"schema": str("")}
	}
	return map[string]any{}
}

// mediaType is t, or application/json when t is empty.
func mediaType(t string) string {
	if t == "" {
		return "application/json"
	}
	return t
}

// paramSchema is the JSON schema of a query parameter.
func paramSchema(p routes.Param) schema {
	s := schema{"type": p.Type}
	if p.Format != "" {
		s["format"] = p.Format
	}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.Min != 0 {
		s["minimum"] = p.Min
	}
	if p.Max != 0 {
		s["maximum"] = p.Max
	}
	return s
}

// idSuffix turns a path into an identifier suffix.
func idSuffix(path string) string {
	var sb strings.Builder
	upper := true
	for _, r := range path {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if upper && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			sb.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	return sb.String()
}
