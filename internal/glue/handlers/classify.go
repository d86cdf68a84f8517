package handlers

import "github.com/modelgate/modelgate/internal/request/routes"

// classify is how the user-path rate limits count a request for rt: its
// RateLimit in the route table. A path no route names, or a method its
// path does not take (ok false), counts nothing: the proxy answers 404 or
// 405.
func classify(rt *routes.Route, ok bool) routes.Counting {
	if !ok {
		return routes.CountNone
	}
	return rt.RateLimit
}
