package translate

// Error is a translation failure the client caused: a request feature the
// target cannot express. The gateway answers 400 invalid_request_error with
// Message and Param.
type Error struct {
	// Message says what cannot be translated and, where there is one, what
	// to do instead.
	Message string
	// Param is the JSON path of the offending request field in the
	// client's request, e.g. "messages[2].content[0].input_audio".
	Param string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Param == "" {
		return e.Message
	}
	return e.Message + " (param " + e.Param + ")"
}
