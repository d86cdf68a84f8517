package audit

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Time window limits.
const (
	// DefaultDays is the window of a query that names none: the last 30
	// days, today included.
	DefaultDays = 30
	// MaxDays is the largest value of the days parameter.
	MaxDays = 366
	// MaxRangeDays is the longest explicit start_date..end_date range.
	MaxRangeDays = 3660
)

// day is one UTC day.
const day = 24 * time.Hour

// Window is a range of whole UTC days: [Start, End), Start at midnight of
// the first day and End at midnight after the last.
type Window struct {
	// Start is midnight (UTC) of the first day.
	Start time.Time
	// End is midnight (UTC) after the last day.
	End time.Time
}

// Days returns the number of days in w.
func (w Window) Days() int { return int(w.End.Sub(w.Start) / day) }

// StartDate returns the first day as YYYY-MM-DD.
func (w Window) StartDate() string { return w.Start.Format(time.DateOnly) }

// EndDate returns the last day as YYYY-MM-DD.
func (w Window) EndDate() string { return w.End.Add(-day).Format(time.DateOnly) }

// LastDays returns the window of the n days ending today (UTC) included.
func LastDays(n int, now time.Time) Window {
	today := now.UTC().Truncate(day)
	return Window{Start: today.AddDate(0, 0, 1-n), End: today.Add(day)}
}

// HasWindow reports whether v names a window (start_date, end_date or
// days).
func HasWindow(v url.Values) bool {
	return v.Has("start_date") || v.Has("end_date") || v.Has("days")
}

// ParseWindow reads a window from the query parameters start_date and
// end_date (YYYY-MM-DD, UTC, both days included) and days (1 to MaxDays,
// default DefaultDays). Explicit dates win over days: with only start_date
// the window ends today, with only end_date it starts days-1 days before
// it. Without dates it is the last days days, today included. A days
// value is not read when start_date is given. An unparseable value, an
// inverted range or one longer than MaxRangeDays is a 400
// invalid_request_error naming the parameter.
func ParseWindow(v url.Values, now time.Time) (Window, error) {
	start, hasStart, err := parseDate(v, "start_date")
	if err != nil {
		return Window{}, err
	}
	end, hasEnd, err := parseDate(v, "end_date")
	if err != nil {
		return Window{}, err
	}
	days := DefaultDays
	if v.Has("days") && !hasStart {
		// days is read only where it counts: a start_date wins over it.
		n, err := strconv.Atoi(v.Get("days"))
		if err != nil || n < 1 || n > MaxDays {
			return Window{}, badParam("days", fmt.Sprintf("days must be an integer from 1 to %d", MaxDays))
		}
		days = n
	}
	if !hasStart && !hasEnd {
		return LastDays(days, now), nil
	}
	if !hasEnd {
		end = now.UTC().Truncate(day)
	}
	if !hasStart {
		start = end.AddDate(0, 0, 1-days)
	}
	if end.Before(start) {
		if !hasEnd {
			// The window would end today, before it starts: the error
			// names the parameter the caller gave.
			return Window{}, badParam("start_date", "start_date is after today (UTC); give an end_date to ask for a later range")
		}
		return Window{}, badParam("end_date", "end_date is before start_date")
	}
	w := Window{Start: start, End: end.Add(day)}
	if w.Days() > MaxRangeDays {
		return Window{}, badParam("start_date", fmt.Sprintf("the date range is longer than %d days", MaxRangeDays))
	}
	return w, nil
}

// parseDate reads one YYYY-MM-DD parameter.
func parseDate(v url.Values, name string) (time.Time, bool, error) {
	if !v.Has(name) {
		return time.Time{}, false, nil
	}
	t, err := time.Parse(time.DateOnly, v.Get(name))
	if err != nil {
		return time.Time{}, false, badParam(name, name+" must be a date as YYYY-MM-DD")
	}
	return t, true, nil
}

// badParam is the 400 error for an invalid query parameter.
func badParam(name, msg string) *apierr.Error {
	return apierr.InvalidRequest(msg).WithCode(apierr.CodeInvalidValue).WithParam(name)
}
