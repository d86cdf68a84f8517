package keys

import "errors"

// ErrNotFound is returned for an unknown key id.
var ErrNotFound = errors.New("managed key not found")

// ErrExpiredEnable is returned for a request to enable a key past its
// expiry time: no change brings an expired key back, so it is refused
// rather than answered with a key that stays unusable.
var ErrExpiredEnable = errors.New("managed key has expired and cannot be enabled again")
