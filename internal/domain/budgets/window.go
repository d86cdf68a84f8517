package budgets

import (
	"fmt"
	"time"
)

// Window is one period of a budget: [Start, End) in UTC.
type Window struct {
	// Start is the first instant of the period.
	Start time.Time
	// End is the first instant after the period.
	End time.Time
}

// Window returns the period p that contains at, under the anchors of s.
//
//   - Hourly: the UTC hour of at.
//   - Daily: from DailyResetHour:00 UTC to the same hour the next day.
//   - Weekly: seven days from DailyResetHour:00 on WeeklyResetWeekday.
//   - Monthly: from DailyResetHour:00 on MonthlyResetDay (or the month's
//     last day when the month is shorter) to the same point of the next
//     month.
//   - Custom: the epoch-aligned window of p's length (windows start at
//     multiples of the length since 1970-01-01T00:00:00Z).
//
// The anchors are read at the call: settings changed mid-period move the
// current period at once.
func (s Settings) Window(p Period, at time.Time) Window {
	at = at.UTC()
	switch p {
	case Hourly:
		start := at.Truncate(time.Hour)
		return Window{start, start.Add(time.Hour)}
	case Daily:
		start := time.Date(at.Year(), at.Month(), at.Day(), s.DailyResetHour, 0, 0, 0, time.UTC)
		if at.Before(start) {
			start = start.AddDate(0, 0, -1)
		}
		return Window{start, start.AddDate(0, 0, 1)}
	case Weekly:
		back := (int(at.Weekday()) - s.WeeklyResetWeekday + 7) % 7
		start := time.Date(at.Year(), at.Month(), at.Day()-back, s.DailyResetHour, 0, 0, 0, time.UTC)
		if at.Before(start) {
			start = start.AddDate(0, 0, -7)
		}
		return Window{start, start.AddDate(0, 0, 7)}
	case Monthly:
		start := s.monthAnchor(at.Year(), at.Month())
		if at.Before(start) {
			start = s.monthAnchor(at.Year(), at.Month()-1)
		}
		return Window{start, s.monthAnchor(start.Year(), start.Month()+1)}
	}
	n := int64(p.duration())
	t := at.UnixNano()
	st := t - t%n
	if t%n < 0 {
		st -= n
	}
	return Window{time.Unix(0, st).UTC(), time.Unix(0, st+n).UTC()}
}

// monthAnchor is the start of the monthly period in month m of year y (m
// may be out of range; it is normalized): MonthlyResetDay clamped to the
// month's last day, at DailyResetHour.
func (s Settings) monthAnchor(y int, m time.Month) time.Time {
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(s.MonthlyResetDay, last), s.DailyResetHour, 0, 0, 0, time.UTC)
}

// Label names the window of a period p for display:
//
//   - Hourly: the start hour, "2026-11-23T14".
//   - Daily: the start date, "2026-11-23".
//   - Weekly: the ISO week holding most of the period's days (the ISO
//     week of the start date plus three days), "2026-W48".
//   - Monthly: the month in which the period starts, "2026-11".
//   - Custom: the start in RFC 3339, "2026-11-23T14:10:00Z".
func (w Window) Label(p Period) string {
	switch p {
	case Hourly:
		return w.Start.Format("2006-01-02T15")
	case Daily:
		return w.Start.Format("2006-01-02")
	case Weekly:
		y, wk := w.Start.AddDate(0, 0, 3).ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, wk)
	case Monthly:
		return w.Start.Format("2006-01")
	}
	return w.Start.Format(time.RFC3339)
}

// Ratio is the elapsed fraction of the window at at, from 0 to 1.
func (w Window) Ratio(at time.Time) float64 {
	total := w.End.Sub(w.Start)
	if total <= 0 {
		return 0
	}
	r := float64(at.Sub(w.Start)) / float64(total)
	return min(max(r, 0), 1)
}

// Equal reports whether w and o are the same period.
func (w Window) Equal(o Window) bool { return w.Start.Equal(o.Start) && w.End.Equal(o.End) }

// Contains reports whether at falls in [Start, End).
func (w Window) Contains(at time.Time) bool { return !at.Before(w.Start) && at.Before(w.End) }
