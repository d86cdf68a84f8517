package translate

// Error is a translation failure the client caused: a request field that
// is malformed, or a feature the target shape cannot express. The gateway
// answers it with 400 invalid_request_error carrying Message, Param and
// Code. The constructors below are the one wording of each kind of
// refusal.
type Error struct {
	// Message says what cannot be translated and, where there is one, what
	// to do instead.
	Message string
	// Param is the JSON path of the offending field in the client's
	// request, e.g. "messages[2].content[0].input_audio" (see Path).
	Param string
	// Code is the gateway error code of the refusal: CodeInvalidJSON for a
	// body that is not a JSON object, CodeMissingParameter for a required
	// field left out; "" for a feature the target cannot express, which the
	// gateway answers with code unsupported_feature.
	Code string
}

// Error codes an Error may carry.
const (
	// CodeInvalidJSON is the code of a request body that is not one JSON
	// object.
	CodeInvalidJSON = "invalid_json"
	// CodeMissingParameter is the code of a request that leaves out a
	// field its shape requires.
	CodeMissingParameter = "missing_required_parameter"
)

// Error implements error.
func (e *Error) Error() string {
	if e.Param == "" {
		return e.Message
	}
	return e.Message + " (param " + e.Param + ")"
}

// Refuse is the Error for the field at p with a message of its own.
func Refuse(p Path, message string) *Error {
	return &Error{Message: message, Param: p.String()}
}

// Invalid is the Error for a field whose value has the wrong type or
// shape: want says what was expected ("a string", "an array of ...").
func Invalid(p Path, want string) *Error {
	param := p.String()
	return &Error{Message: "invalid value for " + param + ": expected " + want, Param: param}
}

// Missing is the Error for a required field the request left out.
func Missing(p Path) *Error {
	param := p.String()
	return &Error{Message: "missing required parameter " + param, Param: param, Code: CodeMissingParameter}
}

// Unknown is the Error for a field the translation to target does not
// know; target names the kind of model ("an Anthropic model").
func Unknown(p Path, target string) *Error {
	param := p.String()
	return &Error{Message: "unknown or unsupported request field " + param + " for " + target, Param: param}
}

// CannotExpress is the Error for a field the target API cannot express;
// why, when not empty, says why or what to do instead.
func CannotExpress(p Path, target, why string) *Error {
	param := p.String()
	msg := param + " is not supported when the model is served by " + target
	if why != "" {
		msg += ": " + why
	}
	return &Error{Message: msg, Param: param}
}
