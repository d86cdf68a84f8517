package budgets

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Errors of validation and of the admin operations. They are wrapped with
// detail; test with errors.Is.
var (
	// ErrInvalidBudget wraps every problem with a budget's user path,
	// period or amount (HTTP 400).
	ErrInvalidBudget = errors.New("invalid budget")
	// ErrInvalidSettings wraps an out-of-range anchor (HTTP 400).
	ErrInvalidSettings = errors.New("invalid budget settings")
	// ErrNotFound is returned when an operation names no existing budget
	// (HTTP 404 not_found_error).
	ErrNotFound = errors.New("budget not found")
	// ErrReadOnly is returned when the admin API writes or deletes a
	// budget seeded from configuration (HTTP 409).
	ErrReadOnly = errors.New("budget comes from configuration and is read-only")
	// ErrTemplatesNotEntitled rejects a per_child budget without the
	// quota_templates entitlement (HTTP 403, code
	// quota_templates_not_entitled; a startup abort for configuration).
	ErrTemplatesNotEntitled = errors.New("per_child budget templates require the quota_templates entitlement")
)

// notFound is ErrNotFound naming k.
func notFound(k Key) error { return fmt.Errorf("%w: %s", ErrNotFound, k) }

// CodeBudgetExceeded is the gateway error code of a refused request.
const CodeBudgetExceeded = "budget_exceeded"

// CheckEntitlement returns an error wrapping ErrTemplatesNotEntitled that
// names the first per_child budget of list (and where it was configured)
// when entitled is false; nil otherwise.
func CheckEntitlement(list []Budget, entitled bool) error {
	if entitled {
		return nil
	}
	for _, b := range list {
		if b.PerChild {
			if b.Origin != "" {
				return fmt.Errorf("%s: %s: per_child: %w", b.Origin, b.Key(), ErrTemplatesNotEntitled)
			}
			return fmt.Errorf("%s: per_child: %w", b.Key(), ErrTemplatesNotEntitled)
		}
	}
	return nil
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// ExceededError is the answer to a refused request: 429 rate_limit_error,
// code budget_exceeded, Retry-After the seconds until the exhausted
// budget's period ends. b is the budget Check named and retryAfter its
// wait; userPath is the caller's path (for a template, the message names
// the caller's child).
func ExceededError(b *Budget, userPath string, retryAfter time.Duration) *apierr.Error {
	msg := "budget exceeded"
	if b != nil {
		msg = fmt.Sprintf("budget exceeded: %s budget of %s on %s is spent; it renews in %d s",
			b.Period, formatAmount(b.Amount), b.EffectiveSubject(userPath), RetryAfterSeconds(retryAfter))
	}
	e := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, msg).WithCode(CodeBudgetExceeded)
	e.RetryAfter = RetryAfterSeconds(retryAfter)
	return e
}

// ReservationRefusedError is ExceededError for a request whose
// worst-case cost (amount, USD) does not fit what budget b has left once
// the requests in flight have reserved theirs (Tracker.Reserve).
func ReservationRefusedError(b *Budget, userPath string, retryAfter time.Duration, amount float64) *apierr.Error {
	e := ExceededError(b, userPath, retryAfter)
	if b != nil {
		e.Message = fmt.Sprintf("budget exceeded: the request's worst-case cost of %s does not fit what the %s budget of %s on %s has left after its spend and the requests in flight; it renews in %d s",
			formatAmount(amount), b.Period, formatAmount(b.Amount), b.EffectiveSubject(userPath), RetryAfterSeconds(retryAfter))
	}
	return e
}

// formatAmount writes a USD amount for messages.
func formatAmount(a float64) string { return fmt.Sprintf("$%.4g", a) }
