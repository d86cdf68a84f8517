package keys

import "errors"

// ErrNotFound is returned for an unknown key id.
var ErrNotFound = errors.New("managed key not found")
