// Package routes is the gateway's route table: every operation it serves or
// will serve, declared once with the attributes the request path reads.
// Authentication asks it whether a route needs a credential, the
// rate-limit stage how a request counts, the proxy which shape a request
// has and whether a handler exists, and the admin API's OpenAPI document
// how each operation is described. Adding an endpoint means one entry in
// the table plus its handler.
//
// Lookup is allocation-free and on every request's path.
package routes

// Any is the Method of a route that accepts every HTTP method.
const Any = "*"

// Route is one operation: a method on a path pattern, with its attributes.
type Route struct {
	// ID names the operation. It is the OpenAPI operationId and the key
	// under which the package answering the route attaches its handler.
	ID string
	// Method is the HTTP method, or Any. A GET route also answers HEAD.
	Method string
	// Path is the URL path pattern. A {name} segment matches one non-empty
	// segment; a final /* matches whatever follows, nothing included. One
	// trailing slash on a request path is ignored.
	Path string
	// Shape is what the requests are: the API shape of a model endpoint,
	// or which part of the gateway answers it itself.
	Shape Shape
	// Credential is what the caller must present; the routes of one path
	// share it. The zero value asks for a valid key, so a route declared
	// without it is never open.
	Credential Credential
	// RateLimit is how the user-path rate-limit rules count a request.
	RateLimit Counting
	// Audited reports whether each request gets an audit entry and a
	// usage record, whatever its outcome.
	Audited bool
	// Budgeted reports whether budgets are enforced before the upstream
	// call and the request's cost counts as spend.
	Budgeted bool
	// Cacheable reports whether the response cache may answer the request
	// and store its answer.
	Cacheable bool
	// Served reports whether a handler exists. A route not served answers
	// 404 unknown_route and stays out of the OpenAPI document; its other
	// attributes hold all the same.
	Served bool
	// Doc describes the operation for the OpenAPI document. It is nil only
	// for a catch-all (Method Any, Path ending in /*) that lends its
	// attributes to the paths below a prefix that no other route names.
	Doc *Doc

	group *group // the routes sharing this Path; set when the table is indexed
}

// Documented reports whether the route belongs in the OpenAPI document:
// it is served and is an operation rather than a catch-all.
func (r *Route) Documented() bool { return r.Served && r.Doc != nil }

// Credential is what a caller must present on a route.
type Credential uint8

// Credentials.
const (
	// CredentialKey needs the master key or a managed key. When no
	// credential exists at all the route is open.
	CredentialKey Credential = iota
	// CredentialNone needs nothing.
	CredentialNone
	// CredentialAdmin needs the master key or a managed key with dashboard
	// access.
	CredentialAdmin
)

// String returns the credential's name.
func (c Credential) String() string {
	switch c {
	case CredentialKey:
		return "key"
	case CredentialNone:
		return "none"
	case CredentialAdmin:
		return "admin"
	}
	return "unknown"
}

// Counting is how the user-path rate-limit rules count a request.
type Counting uint8

// Countings.
const (
	// CountNone passes the request unchecked and uncharged.
	CountNone Counting = iota
	// CountRequestAndSlot counts one request, holds a concurrency slot
	// until the answer is complete (a realtime session: until it ends) and
	// charges the tokens used.
	CountRequestAndSlot
	// CountRequest counts one request and holds no slot (a batch
	// submission).
	CountRequest
)

// String returns the counting's name.
func (c Counting) String() string {
	switch c {
	case CountNone:
		return "none"
	case CountRequestAndSlot:
		return "request+slot"
	case CountRequest:
		return "request"
	}
	return "unknown"
}
