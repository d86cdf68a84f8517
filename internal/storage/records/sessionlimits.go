package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/sessions"
)

// EncodeSessionLimit returns the stored form of an admin-written session
// limit: its JSON object (user_path, max_requests, max_cost,
// max_repeats, per_child, source).
func EncodeSessionLimit(l sessions.Limit) ([]byte, error) { return json.Marshal(l) }

// DecodeSessionLimit reads a limit stored by EncodeSessionLimit under
// userPath; the error names it.
func DecodeSessionLimit(userPath string, v []byte) (sessions.Limit, error) {
	var l sessions.Limit
	if err := json.Unmarshal(v, &l); err != nil {
		return sessions.Limit{}, fmt.Errorf("session limits store: entry %q: %w", userPath, err)
	}
	return l, nil
}
