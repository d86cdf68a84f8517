package store

import (
	"errors"

	berrors "go.etcd.io/bbolt/errors"
)

// RecordError is an error that one record causes and that retrying can
// never fix: the record does not encode, or a key or value made from it
// is refused by the storage engine. A writer drops that record alone,
// counts it by Reason (see DropCounter) and commits the others.
type RecordError struct {
	// Reason is a short slug saying why the record cannot be stored
	// ("key_too_large", "encoding", "data_exception"), the reason label
	// of the drop counter.
	Reason string
	// Err is the underlying error.
	Err error
}

// Error returns the underlying error's message.
func (e *RecordError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// Unstorable marks err as caused by the record being written, so that a
// writer drops that record instead of retrying its batch. A nil err stays
// nil.
func Unstorable(reason string, err error) error {
	if err == nil {
		return nil
	}
	return &RecordError{Reason: reason, Err: err}
}

// RecordReason reports whether err is an error of the record being
// written that retrying cannot fix, and its reason slug: a RecordError
// anywhere in err's chain, or bbolt refusing a key or a value (empty or
// too large a key, too large a value, a key naming a bucket, a bucket
// without a name). Any other error (I/O, a closed database, a broken
// connection) is not the record's.
func RecordReason(err error) (reason string, ok bool) {
	if err == nil {
		return "", false
	}
	if re, ok := errors.AsType[*RecordError](err); ok {
		return re.Reason, true
	}
	switch {
	case errors.Is(err, berrors.ErrKeyTooLarge):
		return "key_too_large", true
	case errors.Is(err, berrors.ErrValueTooLarge):
		return "value_too_large", true
	case errors.Is(err, berrors.ErrKeyRequired):
		return "key_required", true
	case errors.Is(err, berrors.ErrIncompatibleValue):
		return "incompatible_value", true
	case errors.Is(err, berrors.ErrBucketNameRequired), errors.Is(err, errEmptyBucket):
		return "bucket_name_required", true
	}
	return "", false
}
