package keys

import "errors"

// ErrNotFound is returned for an unknown key id.
var ErrNotFound = errors.New("managed key not found")

// InputError reports an invalid field of a create or update request. Its
// message never quotes a secret.
type InputError struct {
	// Field is the offending field's JSON name.
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *InputError) Error() string { return e.Field + ": " + e.Reason }
