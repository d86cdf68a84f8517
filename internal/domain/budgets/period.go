package budgets

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is a budget's period. The named periods are Hourly, Daily,
// Weekly and Monthly; their windows follow the Settings anchors, and
// Monthly windows are calendar months although its nominal length is 30
// days. A custom period is a positive number of seconds with
// epoch-aligned windows. Named and custom periods never share an
// identity: a custom period of 2592000 seconds is not Monthly, and a
// custom period of 86400 seconds is not Daily (its windows ignore the
// daily reset hour). Named periods are stored as the negated nominal
// length, custom periods as their length.
type Period int64

// Named periods.
const (
	// Hourly windows start at every full UTC hour (nominal length 3600 s).
	Hourly Period = -3600
	// Daily windows start every day at the daily reset hour (nominal
	// length 86400 s).
	Daily Period = -86400
	// Weekly windows start on the weekly reset weekday at the daily reset
	// hour (nominal length 604800 s).
	Weekly Period = -7 * 86400
	// Monthly windows are calendar months starting on the monthly reset
	// day (clamped to the month's last day) at the daily reset hour
	// (nominal length 30 days).
	Monthly Period = -30 * 86400
)

// MaxCustomSeconds is the longest custom period: 366 days.
const MaxCustomSeconds = 366 * 86400

// periodNames maps the named periods to their names.
var periodNames = map[Period]string{Hourly: "hourly", Daily: "daily", Weekly: "weekly", Monthly: "monthly"}

// ParsePeriod reads a period as written in configuration and admin routes:
// hourly, daily, weekly or monthly (any case), or a whole number of seconds
// from 1 to MaxCustomSeconds.
func ParsePeriod(s string) (Period, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "hourly":
		return Hourly, nil
	case "daily":
		return Daily, nil
	case "weekly":
		return Weekly, nil
	case "monthly":
		return Monthly, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: period %q is not hourly, daily, weekly, monthly or a whole number of seconds", ErrInvalidBudget, s)
	}
	return PeriodOfSeconds(n)
}

// PeriodOfSeconds returns the custom period of n seconds, also when n is
// a named period's nominal length. n must be from 1 to MaxCustomSeconds.
func PeriodOfSeconds(n int64) (Period, error) {
	if n < 1 || n > MaxCustomSeconds {
		return 0, fmt.Errorf("%w: period_seconds %d is not between 1 and %d", ErrInvalidBudget, n, MaxCustomSeconds)
	}
	return Period(n), nil
}

// Valid reports whether p is a named period or a custom length from 1 to
// MaxCustomSeconds.
func (p Period) Valid() bool { return p.Name() != "" || (p >= 1 && p <= MaxCustomSeconds) }

// Name is "hourly", "daily", "weekly" or "monthly" for a named period and
// "" for a custom one.
func (p Period) Name() string { return periodNames[p] }

// Custom reports whether p is a custom (epoch-aligned) period.
func (p Period) Custom() bool { return p.Name() == "" }

// Seconds is the nominal length in seconds (Monthly: 2592000).
func (p Period) Seconds() int64 {
	if p < 0 {
		return -int64(p)
	}
	return int64(p)
}

// String is the name of a named period, else the number of seconds
// followed by "s" ("600s").
func (p Period) String() string {
	if n := p.Name(); n != "" {
		return n
	}
	return strconv.FormatInt(int64(p), 10) + "s"
}

// PathValue is the period as written in admin routes: the name of a named
// period, else the number of seconds ("600").
func (p Period) PathValue() string {
	if n := p.Name(); n != "" {
		return n
	}
	return strconv.FormatInt(int64(p), 10)
}

// duration is the nominal length.
func (p Period) duration() time.Duration { return time.Duration(p.Seconds()) * time.Second }
