package cache

// Storage persists the cache's entries. Writes may be queued, but an
// entry is visible to Get as soon as Put returns.
type Storage interface {
	// Get returns the entry stored under key; ok is false when there is
	// none.
	Get(key Key) (e Entry, ok bool, err error)
	// Put stores e under e.Key, replacing any entry there, and returns
	// its stored size in bytes.
	Put(e Entry) (size int64, err error)
	// Delete removes the entries under keys; missing keys are not errors.
	Delete(keys []Key) error
	// Scan calls fn with the metadata of every stored entry, without
	// reading the answers; an error from fn stops the scan and is
	// returned.
	Scan(fn func(m Meta) error) error
}
