package store

import "errors"

// ErrUnavailable marks an error of a networked storage backend that is
// temporarily unreachable (the server does not answer, a connection broke,
// the operation timed out or the pool is closed). The operation may
// succeed later; callers answer such failures as a temporary outage (the
// admin API with 503) rather than as a fault of the stored data. Test for
// it with errors.Is.
var ErrUnavailable = errors.New("storage temporarily unreachable")
