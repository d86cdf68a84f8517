package cache

import (
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Meta is what the cache knows of an entry without reading its answer.
type Meta struct {
	// Key identifies the entry.
	Key Key
	// Size is the entry's size in bytes as stored; it counts against
	// MaxBytes.
	Size int64
	// Created is when the answer was stored.
	Created time.Time
	// Expires is when the entry stops being served.
	Expires time.Time
	// UserPath is the caller's user path of the stored request (also
	// under scope global, for purges by user path).
	UserPath string
	// Provider is the provider instance that produced the answer.
	Provider string
	// Model is the upstream model id that produced the answer.
	Model string
}

// Header is one response header kept with an answer.
type Header struct {
	// Name is the canonical header name.
	Name string
	// Value is its value.
	Value string
}

// Answer is a stored response: status 200, the headers kept and the body
// as the sequence of writes the client received, each followed by a
// flush when Stream is set.
type Answer struct {
	// Stream reports whether the body is a server-sent-event stream.
	Stream bool
	// ProviderType is the type of the provider instance that answered.
	ProviderType string
	// Usage is the token usage the upstream reported; HasUsage is false
	// when it reported none.
	Usage catalog.Usage
	// HasUsage reports whether Usage was reported.
	HasUsage bool
	// Headers are the response headers replayed with the answer.
	Headers []Header
	// Chunks are the body's writes in order.
	Chunks [][]byte
}

// BodySize is the total length of the answer's chunks.
func (a *Answer) BodySize() int64 {
	var n int64
	for _, c := range a.Chunks {
		n += int64(len(c))
	}
	return n
}

// Entry is one stored answer with its metadata.
type Entry struct {
	Meta
	Answer
}
