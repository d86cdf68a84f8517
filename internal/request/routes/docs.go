package routes

// Doc describes one operation for the OpenAPI document. Schema names refer
// to the document's named schemas (components/schemas).
type Doc struct {
	// Summary is the one-line description.
	Summary string
	// Tag groups the operation (models, health, auth-keys, ...).
	Tag string
	// Query lists the query parameters.
	Query []Param
	// Body names the request body's schema; empty for none.
	Body string
	// BodyType is the request body's media type; empty means
	// application/json.
	BodyType string
	// Status is the success status.
	Status int
	// Result names the success body's schema; empty for none, or for a
	// body of ResultType that is a plain string.
	Result string
	// ResultType is the success body's media type, or a range of them
	// (audio/*); empty means application/json.
	ResultType string
	// AltTypes are other media types of the success body, which the
	// request picks (a response_format); a range (text/*) stands for every
	// type under it.
	AltTypes []string
	// Streams reports that the answer is a server-sent event stream when
	// the request asks for one.
	Streams bool
	// Errors are the error statuses the operation answers besides those
	// its credential implies (401, and 403 on admin routes).
	Errors []int
	// PassesUpstream reports that a provider's refusal or failure is
	// answered with the provider's status, whatever 4xx or 5xx it is, in
	// the gateway's error shape.
	PassesUpstream bool
	// Relays reports that the answer is the provider's own, relayed with
	// whatever status and body it has; Errors then lists only the statuses
	// whose body is always a gateway error.
	Relays bool
}

// Param is one query parameter. Every query parameter is optional.
type Param struct {
	// Name is the parameter's name.
	Name string
	// Desc says what it does and its default.
	Desc string
	// Type is its JSON type: string or integer.
	Type string
	// Format refines a string type (date).
	Format string
	// Enum lists the allowed values, if only some are.
	Enum []string
	// Min and Max bound an integer; zero means unbounded.
	Min, Max int
}
