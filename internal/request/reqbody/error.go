package reqbody

// Error is Scan's refusal of a body: the client's request is invalid
// (answered with 400 invalid_request_error).
type Error struct {
	// Message says what is wrong, for the client.
	Message string
	// Param names the offending member, when there is one.
	Param string
	// Code is the machine-readable reason: invalid_json or duplicate_field.
	Code string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }
