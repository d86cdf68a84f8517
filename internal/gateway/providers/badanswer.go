package providers

import "errors"

// ErrBadAnswer wraps the failure of an adapter that answers in the
// client's shape from an upstream answer it read itself (the voice
// provider's transcripts): the upstream answered, but its answer broke
// off, was too large, or could not be read. The gateway reports it as an
// answer it could not read, not as an upstream it could not reach.
var ErrBadAnswer = errors.New("the upstream's answer could not be read")
