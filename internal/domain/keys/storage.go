package keys

import (
	"encoding/binary"
	"strings"
)

// Entry names in the Backend's key space: one record per key, and the
// key's last-used time (8 bytes, big-endian Unix nanoseconds) beside it. Last-used times
// are written apart from the record so that a late, queued last-used write
// can never bring back an older version of the record, or a deleted key.
const (
	recordPrefix   = "key/"
	lastUsedPrefix = "used/"
)

func recordKey(id string) []byte   { return []byte(recordPrefix + id) }
func lastUsedKey(id string) []byte { return []byte(lastUsedPrefix + id) }

func encodeNanos(n int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(n))
	return b
}

func decodeNanos(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b)), true
}

// Backend is what the Service needs from storage: one key space of
// entries. The app wires in an implementation (the embedded bbolt store's
// is boltstore.Keys); the Service does not know which.
type Backend interface {
	// Load calls fn for every stored entry.
	Load(fn func(key, value []byte) error) error
	// Put stores value under key and returns once it is durable.
	Put(key, value []byte) error
	// Delete removes the keys and returns once that is durable.
	Delete(keys ...[]byte) error
	// PutLater queues value under key without blocking and reports whether
	// the write was accepted. It must not keep key or value beyond the
	// write; the caller does not reuse them.
	PutLater(key, value []byte) bool
}

// splitEntry tells a stored entry's kind and key id apart.
func splitEntry(key []byte) (kind, id string) {
	k := string(key)
	switch {
	case strings.HasPrefix(k, recordPrefix):
		return recordPrefix, k[len(recordPrefix):]
	case strings.HasPrefix(k, lastUsedPrefix):
		return lastUsedPrefix, k[len(lastUsedPrefix):]
	}
	return "", k
}
