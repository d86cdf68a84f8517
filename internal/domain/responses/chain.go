package responses

import (
	"encoding/json"
	"errors"
	"slices"
)

// ErrNotKept is returned by Chain when a response of the chain is kept by
// its provider rather than by the gateway, which therefore cannot replay
// it.
var ErrNotKept = errors.New("responses: kept by the provider")

// Chain returns the conversation that previous_response_id id of userPath
// continues, oldest first: for each response of the chain, from the first,
// its input items and then its output items. An id of another path, an
// expired or unknown one, anywhere in the chain, is ErrNotFound; a
// response kept by its provider is ErrNotKept.
func (s *Service) Chain(userPath, id string) ([]json.RawMessage, error) {
	var recs []*Record
	for id != "" {
		if len(recs) == maxChain {
			return nil, errors.New("responses: the chain of previous responses is too long")
		}
		r, err := s.Get(userPath, id)
		if err != nil {
			return nil, err
		}
		if r.Native {
			return nil, ErrNotKept
		}
		recs = append(recs, r)
		id = r.PreviousID
	}
	slices.Reverse(recs)
	var items []json.RawMessage
	for _, r := range recs {
		items = append(items, r.InputItems()...)
		items = append(items, r.OutputItems()...)
	}
	return items, nil
}
