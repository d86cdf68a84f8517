package apierr

import "errors"

// FieldError is a validation failure of one field of a request body or
// a configured object, named by its JSON path ("targets[0].weight"). A
// domain returns it (wrapped as it likes) so that the admin API can name
// the field in the error's param.
type FieldError struct {
	// Field is the JSON path of the field at fault.
	Field string
	// Err is what is wrong with it.
	Err error
}

// Error implements error: "field: what is wrong".
func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns what is wrong with the field.
func (e *FieldError) Unwrap() error { return e.Err }

// Field returns the FieldError of field and err.
func Field(field string, err error) error { return &FieldError{Field: field, Err: err} }

// FieldMsg returns the FieldError of field with message msg.
func FieldMsg(field, msg string) error { return &FieldError{Field: field, Err: errors.New(msg)} }

// ParamOf returns the field a FieldError in err's chain names, or "".
func ParamOf(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}
