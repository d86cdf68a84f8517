package handlers

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// placeholderPrefix starts the names of the placeholders the gateway sets
// on each request. They are read when a placeholder is replaced, so an
// access log, log_append or handle_errors sees what every stage learned,
// the proxy's findings included:
//
//	{http.modelgate.user_path}   the caller's user path
//	{http.modelgate.key_id}      the managed key's id ("" for the master key or none)
//	{http.modelgate.provider}    the provider instance that served the request
//	{http.modelgate.model}       the upstream model id it ran
//	{http.modelgate.error_code}  the gateway error's code (its type when it has none)
//	{http.modelgate.session_id}  the detected session
//
// Each is the empty string until a stage learns it. The auth and rate-limit
// stages publish them; a route without either has none.
const placeholderPrefix = "http.modelgate."

// requestInfo returns r's request-scoped state, creating it when no earlier
// stage did, together with the request carrying it. Creating it also
// registers the placeholders that read it on the request's replacer.
func requestInfo(r *http.Request) (*reqinfo.Info, *http.Request) {
	if info := reqinfo.From(r.Context()); info != nil {
		return info, r
	}
	info := reqinfo.New()
	r = r.WithContext(reqinfo.With(r.Context(), info))
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		repl.Map(placeholders(info))
	}
	return info, r
}

// placeholders answers the {http.modelgate.*} placeholders from info.
func placeholders(info *reqinfo.Info) caddy.ReplacerFunc {
	return func(key string) (any, bool) {
		name, ok := strings.CutPrefix(key, placeholderPrefix)
		if !ok {
			return nil, false
		}
		switch name {
		case "user_path":
			return info.UserPath, true
		case "key_id":
			return info.KeyID, true
		case "provider":
			return info.ProviderName, true
		case "model":
			return info.ResolvedModel, true
		case "error_code":
			return info.ErrorCode, true
		case "session_id":
			return info.SessionID, true
		}
		return nil, false
	}
}
