package responses

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Record is one stored response.
type Record struct {
	// ID is the response's id (resp_ and random hex for the responses
	// the gateway keeps; the provider's id for native ones).
	ID string `json:"id"`
	// UserPath is the user path of the caller that created it; only that
	// path sees it.
	UserPath string `json:"user_path"`
	// CreatedAt is when the gateway recorded it.
	CreatedAt time.Time `json:"created_at"`
	// Provider is the provider instance that served it.
	Provider string `json:"provider"`
	// Native reports that the provider keeps the response itself
	// (Response and Input are empty): reads and deletes are relayed to it.
	Native bool `json:"native,omitempty"`
	// PreviousID is the previous_response_id it continued, "" for none.
	PreviousID string `json:"previous_response_id,omitempty"`
	// Input is the JSON array of the request's own input items, each
	// with an id (not those of the previous responses).
	Input json.RawMessage `json:"input,omitempty"`
	// Response is the final response object, as the client got it (a
	// stream's as its terminal event carried it).
	Response json.RawMessage `json:"response,omitempty"`
}

// NewID returns a new response id: resp_ and 48 hex digits (24 random
// bytes), which nobody can guess.
func NewID() string { return "resp_" + randomHex(24) }

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
