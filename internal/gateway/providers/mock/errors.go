package mock

import (
	"fmt"
	"net/http"
)

// apiError is an error answered with an OpenAI-shaped body:
// {"error":{"message":...,"type":...,"param":...,"code":...}}.
type apiError struct {
	status  int
	message string
	typ     string
	param   string // "" encodes as null
	code    string // "" encodes as null
}

// errorBody is the wire form of apiError.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// nullable returns nil for "" so that it encodes as JSON null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// invalidRequest returns a 400 invalid_request_error about param.
func invalidRequest(param, format string, args ...any) *apiError {
	return &apiError{
		status:  http.StatusBadRequest,
		message: fmt.Sprintf(format, args...),
		typ:     "invalid_request_error",
		param:   param,
	}
}

// badJSON is the error for a body that is not a JSON object.
func badJSON() *apiError {
	return invalidRequest("", "We could not parse the JSON body of your request. "+
		"(HINT: This likely means you aren't using your HTTP library correctly. "+
		"The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)")
}

// modelNotFound is the 404 error for an unknown model id.
func modelNotFound(model string) *apiError {
	return &apiError{
		status:  http.StatusNotFound,
		message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model),
		typ:     "invalid_request_error",
		code:    "model_not_found",
	}
}

// missingModel is the 400 error for a request without a model.
func missingModel() *apiError {
	return invalidRequest("", "you must provide a model parameter")
}

// writeError writes e as an OpenAI-shaped JSON error response.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, errorBody{Error: errorDetail{
		Message: e.message,
		Type:    e.typ,
		Param:   nullable(e.param),
		Code:    nullable(e.code),
	}})
}
