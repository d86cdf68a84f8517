package budgets

import (
	"testing"
	"time"
)

// ts parses an RFC 3339 instant for tests.
func ts(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type windowCase struct {
	name       string
	settings   Settings
	period     Period
	at         string
	start, end string
	label      string
}

func runWindowCases(t *testing.T, cases []windowCase) {
	t.Helper()
	for _, c := range cases {
		w := c.settings.Window(c.period, ts(t, c.at))
		if got, want := w.Start, ts(t, c.start); !got.Equal(want) {
			t.Errorf("%s: start %s, want %s", c.name, got.Format(time.RFC3339), c.start)
		}
		if got, want := w.End, ts(t, c.end); !got.Equal(want) {
			t.Errorf("%s: end %s, want %s", c.name, got.Format(time.RFC3339), c.end)
		}
		if c.label != "" && w.Label(c.period) != c.label {
			t.Errorf("%s: label %q, want %q", c.name, w.Label(c.period), c.label)
		}
		if !w.Contains(ts(t, c.at)) {
			t.Errorf("%s: window does not contain its instant", c.name)
		}
		if w.Start.Location() != time.UTC || w.End.Location() != time.UTC {
			t.Errorf("%s: window not in UTC", c.name)
		}
	}
}

func TestWindowHourly(t *testing.T) {
	d := DefaultSettings()
	odd := Settings{DailyResetHour: 7, WeeklyResetWeekday: 3, MonthlyResetDay: 17} // anchors do not move hours
	runWindowCases(t, []windowCase{
		{"mid hour", d, Hourly, "2026-11-23T14:37:12Z", "2026-11-23T14:00:00Z", "2026-11-23T15:00:00Z", "2026-11-23T14"},
		{"on the hour", d, Hourly, "2026-11-23T14:00:00Z", "2026-11-23T14:00:00Z", "2026-11-23T15:00:00Z", "2026-11-23T14"},
		{"last nanosecond", d, Hourly, "2026-11-23T14:59:59.999999999Z", "2026-11-23T14:00:00Z", "2026-11-23T15:00:00Z", ""},
		{"across midnight and year", odd, Hourly, "2026-12-31T23:30:00Z", "2026-12-31T23:00:00Z", "2027-01-01T00:00:00Z", "2026-12-31T23"},
		{"other zone is read as UTC", d, Hourly, "2026-11-23T14:37:00+05:30", "2026-11-23T09:00:00Z", "2026-11-23T10:00:00Z", "2026-11-23T09"},
	})
}

func TestWindowDaily(t *testing.T) {
	d := DefaultSettings()
	h6 := Settings{DailyResetHour: 6, WeeklyResetWeekday: 1, MonthlyResetDay: 1}
	h23 := Settings{DailyResetHour: 23, WeeklyResetWeekday: 1, MonthlyResetDay: 1}
	runWindowCases(t, []windowCase{
		{"midnight anchor", d, Daily, "2026-11-23T10:00:00Z", "2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z", "2026-11-23"},
		{"exactly midnight", d, Daily, "2026-11-24T00:00:00Z", "2026-11-24T00:00:00Z", "2026-11-25T00:00:00Z", "2026-11-24"},
		{"last instant", d, Daily, "2026-11-23T23:59:59.999999999Z", "2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z", ""},
		{"hour 6, before it", h6, Daily, "2026-11-23T05:59:59Z", "2026-11-22T06:00:00Z", "2026-11-23T06:00:00Z", "2026-11-22"},
		{"hour 6, at it", h6, Daily, "2026-11-23T06:00:00Z", "2026-11-23T06:00:00Z", "2026-11-24T06:00:00Z", "2026-11-23"},
		{"hour 6, across month", h6, Daily, "2026-12-01T03:00:00Z", "2026-11-30T06:00:00Z", "2026-12-01T06:00:00Z", "2026-11-30"},
		{"hour 23, across year", h23, Daily, "2027-01-01T22:00:00Z", "2026-12-31T23:00:00Z", "2027-01-01T23:00:00Z", "2026-12-31"},
		{"leap day", d, Daily, "2028-02-29T12:00:00Z", "2028-02-29T00:00:00Z", "2028-03-01T00:00:00Z", "2028-02-29"},
	})
}

// TestWindowWeeklyEveryAnchor: from Wednesday 2026-11-25 10:00 UTC, the
// week starts on the latest anchor weekday at the reset hour.
func TestWindowWeeklyEveryAnchor(t *testing.T) {
	at := "2026-11-25T10:00:00Z" // a Wednesday
	starts := []string{
		time.Sunday:    "2026-11-22",
		time.Monday:    "2026-11-23",
		time.Tuesday:   "2026-11-24",
		time.Wednesday: "2026-11-25",
		time.Thursday:  "2026-11-19",
		time.Friday:    "2026-11-20",
		time.Saturday:  "2026-11-21",
	}
	// The label is the ISO week holding four or more of the seven days.
	labels := []string{"2026-W48", "2026-W48", "2026-W48", "2026-W48", "2026-W47", "2026-W48", "2026-W48"}
	var cases []windowCase
	for wd, day := range starts {
		s := Settings{DailyResetHour: 0, WeeklyResetWeekday: wd, MonthlyResetDay: 1}
		start := ts(t, day+"T00:00:00Z")
		cases = append(cases, windowCase{time.Weekday(wd).String(), s, Weekly, at,
			start.Format(time.RFC3339), start.AddDate(0, 0, 7).Format(time.RFC3339), labels[wd]})
	}
	// With a reset hour after the instant, the anchor day itself has not
	// started yet: Wednesday goes back a week, the others keep their day.
	for wd, day := range starts {
		s := Settings{DailyResetHour: 12, WeeklyResetWeekday: wd, MonthlyResetDay: 1}
		start := ts(t, day+"T12:00:00Z")
		if time.Weekday(wd) == time.Wednesday {
			start = start.AddDate(0, 0, -7)
		}
		cases = append(cases, windowCase{time.Weekday(wd).String() + " at 12h", s, Weekly, at,
			start.Format(time.RFC3339), start.AddDate(0, 0, 7).Format(time.RFC3339), ""})
	}
	runWindowCases(t, cases)

	// Every weekday anchor, every instant of two weeks in 1-hour steps:
	// the window starts on the anchor weekday at the reset hour, lasts 7
	// days and contains the instant.
	for wd := 0; wd < 7; wd++ {
		s := Settings{DailyResetHour: 5, WeeklyResetWeekday: wd, MonthlyResetDay: 1}
		for at := ts(t, "2026-12-20T00:00:00Z"); at.Before(ts(t, "2027-01-03T00:00:00Z")); at = at.Add(time.Hour) {
			w := s.Window(Weekly, at)
			if int(w.Start.Weekday()) != wd || w.Start.Hour() != 5 || w.End.Sub(w.Start) != 7*24*time.Hour || !w.Contains(at) {
				t.Fatalf("anchor %d at %s: window %s - %s", wd, at, w.Start, w.End)
			}
		}
	}
}

func TestWindowWeeklyLabelAcrossYear(t *testing.T) {
	s := DefaultSettings() // Monday
	runWindowCases(t, []windowCase{
		{"53rd ISO week", s, Weekly, "2026-12-31T00:00:00Z", "2026-12-28T00:00:00Z", "2027-01-04T00:00:00Z", "2026-W53"},
		{"first week of 2027", s, Weekly, "2027-01-05T00:00:00Z", "2027-01-04T00:00:00Z", "2027-01-11T00:00:00Z", "2027-W01"},
	})
}

func TestWindowMonthly(t *testing.T) {
	day := func(d, h int) Settings { return Settings{DailyResetHour: h, WeeklyResetWeekday: 1, MonthlyResetDay: d} }
	runWindowCases(t, []windowCase{
		{"first of month", day(1, 0), Monthly, "2026-11-23T10:00:00Z", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11"},
		{"across the year", day(1, 0), Monthly, "2026-12-31T23:59:59Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2026-12"},
		{"new year", day(1, 0), Monthly, "2027-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", "2027-01"},
		{"day 1 hour 6, before it", day(1, 6), Monthly, "2026-11-01T05:00:00Z", "2026-10-01T06:00:00Z", "2026-11-01T06:00:00Z", "2026-10"},
		{"day 15", day(15, 0), Monthly, "2026-11-10T00:00:00Z", "2026-10-15T00:00:00Z", "2026-11-15T00:00:00Z", "2026-10"},
		// monthly_reset_day 31 clamps to the month's last day.
		{"31: January", day(31, 0), Monthly, "2026-02-10T00:00:00Z", "2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-01"},
		{"31: 28-day February", day(31, 0), Monthly, "2026-02-28T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z", "2026-02"},
		{"31: February's last second", day(31, 0), Monthly, "2026-02-27T23:59:59Z", "2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", ""},
		{"31: 29-day February", day(31, 0), Monthly, "2028-03-01T00:00:00Z", "2028-02-29T00:00:00Z", "2028-03-31T00:00:00Z", "2028-02"},
		{"31: 31 -> 30 (March to April)", day(31, 0), Monthly, "2026-04-15T00:00:00Z", "2026-03-31T00:00:00Z", "2026-04-30T00:00:00Z", "2026-03"},
		{"31: April 30 starts a period", day(31, 0), Monthly, "2026-04-30T00:00:00Z", "2026-04-30T00:00:00Z", "2026-05-31T00:00:00Z", "2026-04"},
		{"30: February", day(30, 0), Monthly, "2026-03-01T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-30T00:00:00Z", "2026-02"},
		{"29: leap February", day(29, 0), Monthly, "2028-02-29T01:00:00Z", "2028-02-29T00:00:00Z", "2028-03-29T00:00:00Z", "2028-02"},
		{"29: common February", day(29, 0), Monthly, "2027-02-28T01:00:00Z", "2027-02-28T00:00:00Z", "2027-03-29T00:00:00Z", "2027-02"},
		{"31 at hour 18", day(31, 18), Monthly, "2026-02-28T17:59:59Z", "2026-01-31T18:00:00Z", "2026-02-28T18:00:00Z", "2026-01"},
	})

	// Every day of a leap year and of a common year, for anchors 1, 28,
	// 29, 30 and 31: consecutive windows tile time without gap or overlap.
	for _, d := range []int{1, 28, 29, 30, 31} {
		s := day(d, 3)
		prev := s.Window(Monthly, ts(t, "2027-12-15T00:00:00Z"))
		for i := 0; i < 30; i++ {
			next := s.Window(Monthly, prev.End)
			if !next.Start.Equal(prev.End) || !next.End.After(next.Start) {
				t.Fatalf("day %d: %s - %s then %s - %s", d, prev.Start, prev.End, next.Start, next.End)
			}
			if want := min(d, time.Date(next.Start.Year(), next.Start.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()); next.Start.Day() != want {
				t.Fatalf("day %d: period starts on %s", d, next.Start)
			}
			prev = next
		}
	}
}

func TestWindowCustom(t *testing.T) {
	d := DefaultSettings()
	runWindowCases(t, []windowCase{
		{"600 s", d, 600, "2026-11-23T14:37:12Z", "2026-11-23T14:30:00Z", "2026-11-23T14:40:00Z", "2026-11-23T14:30:00Z"},
		{"600 s boundary", d, 600, "2026-11-23T14:40:00Z", "2026-11-23T14:40:00Z", "2026-11-23T14:50:00Z", ""},
		{"epoch aligned 7 s", d, 7, "1970-01-01T00:00:20Z", "1970-01-01T00:00:14Z", "1970-01-01T00:00:21Z", ""},
		{"before the epoch", d, 7, "1969-12-31T23:59:59Z", "1969-12-31T23:59:53Z", "1970-01-01T00:00:00Z", ""},
		// 2026-11-23 is day 20780 since the epoch, an even number.
		{"two days ignore the anchors", Settings{DailyResetHour: 9, WeeklyResetWeekday: 1, MonthlyResetDay: 1}, 2 * 86400,
			"2026-11-24T10:00:00Z", "2026-11-23T00:00:00Z", "2026-11-25T00:00:00Z", "2026-11-23T00:00:00Z"},
	})
}

// TestWindowSettingsChangeMidPeriod: the anchors are read at every call,
// so a change moves the current period at once.
func TestWindowSettingsChangeMidPeriod(t *testing.T) {
	at := ts(t, "2026-11-23T10:00:00Z")
	before := DefaultSettings()
	after := Settings{DailyResetHour: 12, WeeklyResetWeekday: 4, MonthlyResetDay: 20}
	runWindowCases(t, []windowCase{
		{"daily before", before, Daily, at.Format(time.RFC3339), "2026-11-23T00:00:00Z", "2026-11-24T00:00:00Z", ""},
		{"daily after", after, Daily, at.Format(time.RFC3339), "2026-11-22T12:00:00Z", "2026-11-23T12:00:00Z", ""},
		{"weekly before", before, Weekly, at.Format(time.RFC3339), "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z", ""},
		{"weekly after", after, Weekly, at.Format(time.RFC3339), "2026-11-19T12:00:00Z", "2026-11-26T12:00:00Z", ""},
		{"monthly before", before, Monthly, at.Format(time.RFC3339), "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", ""},
		{"monthly after", after, Monthly, at.Format(time.RFC3339), "2026-11-20T12:00:00Z", "2026-12-20T12:00:00Z", ""},
	})
}

func TestWindowRatio(t *testing.T) {
	w := DefaultSettings().Window(Daily, ts(t, "2026-11-23T06:00:00Z"))
	for at, want := range map[string]float64{
		"2026-11-23T00:00:00Z": 0, "2026-11-23T06:00:00Z": 0.25, "2026-11-23T18:00:00Z": 0.75,
		"2026-11-22T00:00:00Z": 0, "2026-11-25T00:00:00Z": 1,
	} {
		if got := w.Ratio(ts(t, at)); got != want {
			t.Errorf("ratio at %s = %v, want %v", at, got, want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	for in, want := range map[string]Period{
		"hourly": Hourly, "Daily": Daily, " weekly ": Weekly, "MONTHLY": Monthly,
		"600": 600, "86400": 86400, "3600": 3600, "2592000": 2592000, "1": 1, "31622400": MaxCustomSeconds,
	} {
		got, err := ParsePeriod(in)
		if err != nil || got != want {
			t.Errorf("ParsePeriod(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yearly", "0", "-5", "1.5", "31622401", "9999999999999999999999", "day"} {
		if _, err := ParsePeriod(in); err == nil {
			t.Errorf("ParsePeriod(%q) accepted", in)
		}
	}
	if Period(600).String() != "600s" || Period(600).PathValue() != "600" || Daily.String() != "daily" ||
		Monthly.PathValue() != "monthly" || !Period(600).Custom() || Weekly.Custom() {
		t.Error("period names")
	}
}

// A custom period as long as a named period's nominal length is a
// different budget identity with its own windows.
func TestCustomPeriodIsNotNamed(t *testing.T) {
	for _, named := range []Period{Hourly, Daily, Weekly, Monthly} {
		custom, err := PeriodOfSeconds(named.Seconds())
		if err != nil || custom == named || !custom.Custom() || named.Custom() || !named.Valid() || !custom.Valid() {
			t.Fatalf("%s: custom %v (%v) not apart", named, custom, err)
		}
		if custom.Seconds() != named.Seconds() || custom.PathValue() == named.PathValue() {
			t.Errorf("%s: seconds %d/%d, path %q/%q", named, custom.Seconds(), named.Seconds(), custom.PathValue(), named.PathValue())
		}
		if (Key{UserPath: "/t", Period: custom}) == (Key{UserPath: "/t", Period: named}) {
			t.Errorf("%s: keys equal", named)
		}
	}
	// Monthly follows calendar months; 2592000 s is epoch-aligned.
	at := ts(t, "2026-02-10T00:00:00Z")
	set := DefaultSettings()
	if set.Window(Monthly, at).Equal(set.Window(2592000, at)) {
		t.Error("monthly and 2592000 s share a window")
	}
	if got := set.Window(2592000, at).End.Sub(set.Window(2592000, at).Start); got != 30*24*time.Hour {
		t.Errorf("custom window length %v", got)
	}
	if Period(0).Valid() || Period(-5).Valid() || Period(MaxCustomSeconds+1).Valid() {
		t.Error("invalid periods accepted")
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := DefaultSettings().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{
		{DailyResetHour: 24, WeeklyResetWeekday: 1, MonthlyResetDay: 1},
		{DailyResetHour: -1, WeeklyResetWeekday: 1, MonthlyResetDay: 1},
		{DailyResetHour: 0, WeeklyResetWeekday: 7, MonthlyResetDay: 1},
		{DailyResetHour: 0, WeeklyResetWeekday: -1, MonthlyResetDay: 1},
		{DailyResetHour: 0, WeeklyResetWeekday: 1, MonthlyResetDay: 0},
		{DailyResetHour: 0, WeeklyResetWeekday: 1, MonthlyResetDay: 32},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
