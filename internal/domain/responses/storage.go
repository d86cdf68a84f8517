package responses

import (
	"errors"
	"time"
)

// ErrNotFound is returned by Storage for an id that is not stored.
var ErrNotFound = errors.New("responses: not found")

// Storage is what the responses domain needs from a persistent store.
type Storage interface {
	// PutResponses stores recs, replacing stored records of the same ids,
	// in one transaction.
	PutResponses(recs []*Record) error
	// Response returns the record with that id, or ErrNotFound.
	Response(id string) (*Record, error)
	// DeleteResponse removes the record with that id, or returns
	// ErrNotFound.
	DeleteResponse(id string) error
	// DeleteResponsesBefore removes every record created before t and
	// returns how many it removed.
	DeleteResponsesBefore(t time.Time) (int, error)
}
