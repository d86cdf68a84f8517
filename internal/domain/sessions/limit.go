package sessions

import (
	"errors"
	"fmt"
	"math"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// Sources of a limit.
const (
	// SourceConfig marks a limit from the configuration file.
	SourceConfig = "config"
	// SourceManual marks a limit written through the admin API.
	SourceManual = "manual"
)

// MinRepeats is the smallest max_repeats accepted: one answer is never a
// repetition.
const MinRepeats = 2

// Limit is the session limits of one user path.
type Limit struct {
	// UserPath is the user path the limits apply to: the path itself and
	// every path below it (with PerChild, only the paths below it).
	UserPath string `yaml:"user_path" json:"user_path"`
	// MaxRequests is the most requests one session may make; 0 means no
	// limit.
	MaxRequests int64 `yaml:"max_requests,omitempty" json:"max_requests,omitempty"`
	// MaxCost is the most one session may spend, in the pricing's
	// currency (USD); 0 means no limit.
	MaxCost float64 `yaml:"max_cost,omitempty" json:"max_cost,omitempty"`
	// MaxRepeats is how many identical answers in a row (the same tool
	// call with the same arguments, or the same error) end a session: the
	// request after the MaxRepeats-th is refused. 0 means no limit;
	// otherwise at least MinRepeats.
	MaxRepeats int `yaml:"max_repeats,omitempty" json:"max_repeats,omitempty"`
	// PerChild makes the limit a template: it applies to the paths below
	// UserPath, each direct child's sessions counted apart ("/customers"
	// limits "/customers/alice" and "/customers/bob" separately), like a
	// per_child rate limit.
	PerChild bool `yaml:"per_child,omitempty" json:"per_child,omitempty"`
	// Source is where the limit comes from (SourceConfig or
	// SourceManual); set by the guard, never read from input.
	Source string `yaml:"-" json:"source,omitempty"`
}

// Normalized returns l with its user path in matching form (normalized,
// lower-cased), or an error saying which field is wrong.
func (l Limit) Normalized() (Limit, error) {
	if l.UserPath == "" {
		return l, &FieldError{Field: "user_path", Msg: "missing"}
	}
	p, err := limits.MatchPath(l.UserPath)
	if err != nil {
		return l, &FieldError{Field: "user_path", Msg: err.Error()}
	}
	l.UserPath = p
	switch {
	case l.MaxRequests < 0:
		return l, &FieldError{Field: "max_requests", Msg: "must not be negative"}
	case l.MaxCost < 0 || math.IsNaN(l.MaxCost) || math.IsInf(l.MaxCost, 0):
		return l, &FieldError{Field: "max_cost", Msg: "must be a non-negative number"}
	case l.MaxRepeats < 0 || l.MaxRepeats == 1:
		return l, &FieldError{Field: "max_repeats", Msg: fmt.Sprintf("must be 0 (no limit) or at least %d", MinRepeats)}
	case l.MaxRequests == 0 && l.MaxCost == 0 && l.MaxRepeats == 0:
		return l, &FieldError{Field: "max_requests", Msg: "set at least one of max_requests, max_cost and max_repeats"}
	}
	return l, nil
}

// FieldError is a limit that does not validate, naming the field.
type FieldError struct {
	// Field is the offending field's JSON name.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ErrNotFound is returned when deleting a limit that was not written
// through the admin API.
var ErrNotFound = errors.New("no session limit written through the admin API on this user path")

// FromConfig validates the limits of the configuration's session_limits
// list; an error names the entry. Two entries on one user path are an
// error.
func FromConfig(list []Limit) ([]Limit, error) {
	out := make([]Limit, 0, len(list))
	seen := map[string]bool{}
	for i, l := range list {
		n, err := l.Normalized()
		if err != nil {
			return nil, fmt.Errorf("session_limits[%d]: %w", i, err)
		}
		if seen[n.UserPath] {
			return nil, fmt.Errorf("session_limits[%d]: user_path %s: listed twice", i, n.UserPath)
		}
		seen[n.UserPath] = true
		n.Source = SourceConfig
		out = append(out, n)
	}
	return out, nil
}
