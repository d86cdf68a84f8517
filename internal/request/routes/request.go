package routes

import "net/http"

// Path is the path a request's route is matched on: the escaped form when
// the client escaped a character that needed none (a URL-encoded user
// path in /admin/budgets/{user_path}/{period} keeps its "%2F" as one
// segment), else the path. Path parameters are therefore URL-encoded.
// Every stage that looks a request's route up matches this path, so that
// the stages that count, limit and record a request agree with the one
// that serves it.
func Path(r *http.Request) string {
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	return r.URL.Path
}

// LookupRequest is Lookup of r's method and Path.
func LookupRequest(r *http.Request) (*Route, bool) {
	return Lookup(r.Method, Path(r))
}
