package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/responses"
)

// A stored response is the JSON form of responses.Record: its owner,
// provider and times, the request's input and the final response object,
// both kept byte for byte.

// EncodeResponse returns the stored form of the response record r.
func EncodeResponse(r *responses.Record) ([]byte, error) { return json.Marshal(r) }

// DecodeResponse reads the response record id stored by EncodeResponse;
// the error names id. A record whose id differs from the key it is stored
// under is refused.
func DecodeResponse(id string, b []byte) (*responses.Record, error) {
	var r responses.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("stored response %q: %w", id, err)
	}
	if r.ID != id {
		return nil, fmt.Errorf("stored response %q: the record names id %q", id, r.ID)
	}
	return &r, nil
}
