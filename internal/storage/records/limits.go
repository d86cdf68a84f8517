package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// RuleName is how a stored rate-limit rule is named in errors: its
// scope, period label ("minute", "90s") and subject, space-separated, as
// in "model 90s openai/gpt-4o".
func RuleName(scope, periodLabel, subject string) string {
	return scope + " " + periodLabel + " " + subject
}

// EncodeRule returns the stored form of the rate-limit rule r: the
// limits.Rule JSON form.
func EncodeRule(r limits.Rule) ([]byte, error) { return json.Marshal(r) }

// DecodeRule reads a rule stored by EncodeRule under name (see RuleName).
// Its error is the one a rule store reports when it skips an unreadable
// record and loads the others: it names the record.
func DecodeRule(name string, b []byte) (limits.Rule, error) {
	var r limits.Rule
	if err := json.Unmarshal(b, &r); err != nil {
		return limits.Rule{}, fmt.Errorf("record %q: %w", name, err)
	}
	return r, nil
}
