package selfusage

import (
	"context"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// UsageDays is the length of the longer usage period GET /v1/usage
// reports, in UTC days, today included.
const UsageDays = 30

// TotalsSource sums the usage of a user path and the paths below it since
// an instant: *audit.UsageQueries implements it.
type TotalsSource interface {
	// Totals returns the usage of userPath and the paths below it since
	// the instant since.
	Totals(userPath string, since time.Time) (audit.UsageAggregate, error)
}

// PeriodUsage is the caller's usage over one period.
type PeriodUsage struct {
	// Since is the period's start (UTC midnight); it runs up to now.
	Since time.Time `json:"since"`
	// Requests counts requests, response-cache hits included.
	Requests int64 `json:"requests"`
	// Usage sums the token counts, response-cache hits included.
	catalog.Usage
	// Cost sums the spend: priced requests that reached a provider.
	Cost catalog.Amount `json:"cost"`
}

// UsageReport is the usage object of GET /v1/usage: the caller's user
// path's usage, the paths below it included.
type UsageReport struct {
	// Today runs from 00:00 UTC today up to now.
	Today PeriodUsage `json:"today"`
	// Last30Days runs from 00:00 UTC UsageDays-1 days before today up to
	// now: UsageDays calendar days, today included.
	Last30Days PeriodUsage `json:"last_30_days"`
}

// Totals adapts the usage reads to UsageProvider.
type Totals struct {
	// Source sums recorded usage; nil (usage tracking off) answers zeroed
	// totals.
	Source TotalsSource
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnError, when set, is told of a failed read; the answer is then
	// null.
	OnError func(error)
}

// Usage implements UsageProvider: a *UsageReport for userPath, zeroed
// when usage is not tracked, or nil when it could not be read.
func (t Totals) Usage(_ context.Context, userPath string) any {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	today := now().UTC().Truncate(24 * time.Hour)
	var rep UsageReport
	for _, p := range []struct {
		out   *PeriodUsage
		since time.Time
	}{{&rep.Today, today}, {&rep.Last30Days, today.AddDate(0, 0, 1-UsageDays)}} {
		if t.Source == nil {
			p.out.Since = p.since
			continue
		}
		a, err := t.Source.Totals(userPath, p.since)
		if err != nil {
			if t.OnError != nil {
				t.OnError(err)
			}
			return nil
		}
		*p.out = PeriodUsage{Since: p.since, Requests: a.Requests, Usage: a.Tokens, Cost: a.Cost.Amount()}
	}
	return &rep
}
