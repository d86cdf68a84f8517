package audit

import (
	"errors"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// TestParseWindowStartAfterToday: a start_date after today without an
// end_date is refused naming start_date, the parameter the caller gave,
// not an end_date it never sent.
func TestParseWindowStartAfterToday(t *testing.T) {
	now := time.Date(2026, 3, 30, 15, 4, 5, 0, time.UTC)
	v, _ := url.ParseQuery("start_date=2026-03-31")
	_, err := ParseWindow(v, now)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Param == nil || *ae.Param != "start_date" {
		t.Fatalf("error %v, want a 400 naming start_date", err)
	}
	// A range in the future that names both ends is a valid (empty) window.
	v, _ = url.ParseQuery("start_date=2026-03-31&end_date=2026-04-02")
	if w, err := ParseWindow(v, now); err != nil || w.Days() != 3 {
		t.Fatalf("future range: %v %v", w, err)
	}
}

func TestParseWindow(t *testing.T) {
	now := time.Date(2026, 3, 30, 15, 4, 5, 0, time.UTC)
	cases := []struct {
		query      string
		start, end string // first and last day
	}{
		{"", "2026-03-01", "2026-03-30"},
		{"days=1", "2026-03-30", "2026-03-30"},
		{"days=366", "2025-03-30", "2026-03-30"},
		{"start_date=2026-01-01&end_date=2026-01-31", "2026-01-01", "2026-01-31"},
		{"start_date=2026-01-01&end_date=2026-01-31&days=7", "2026-01-01", "2026-01-31"},
		// Explicit dates win: a days they leave unused is not read.
		{"start_date=2026-01-01&end_date=2026-01-31&days=abc", "2026-01-01", "2026-01-31"},
		{"start_date=2026-03-29&days=0", "2026-03-29", "2026-03-30"},
		{"start_date=2026-03-29", "2026-03-29", "2026-03-30"},
		{"end_date=2026-02-10&days=10", "2026-02-01", "2026-02-10"},
		{"start_date=2026-02-10&end_date=2026-02-10", "2026-02-10", "2026-02-10"},
	}
	for _, c := range cases {
		v, _ := url.ParseQuery(c.query)
		w, err := ParseWindow(v, now)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if w.StartDate() != c.start || w.EndDate() != c.end {
			t.Fatalf("%q: %s..%s, want %s..%s", c.query, w.StartDate(), w.EndDate(), c.start, c.end)
		}
		if w.Start.Hour() != 0 || w.End.Sub(w.Start)%(24*time.Hour) != 0 {
			t.Fatalf("%q: not whole days: %v", c.query, w)
		}
	}
	for _, bad := range []string{"days=0", "days=367", "days=x", "days=", "end_date=2026-02-10&days=x", "start_date=2026-13-01",
		"end_date=yesterday", "start_date=2026-02-10&end_date=2026-02-09", "start_date=2000-01-01&end_date=2026-01-01"} {
		v, _ := url.ParseQuery(bad)
		_, err := ParseWindow(v, now)
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Type != apierr.TypeInvalidRequest || ae.Param == nil {
			t.Fatalf("%q: error %v, want a 400 naming the parameter", bad, err)
		}
	}
}

func TestParseListQueryDays(t *testing.T) {
	now := time.Date(2026, 3, 1, 15, 4, 5, 0, time.UTC) // a month's first day
	day := func(d int) time.Time { return time.Date(2026, 2, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		query    string
		from, to time.Time
	}{
		{"days=1", now.Truncate(24 * time.Hour), now.Truncate(24 * time.Hour).Add(24 * time.Hour)},
		{"days=2", day(28), day(28).AddDate(0, 0, 2)},
		{"days=3&end_date=2026-02-10", day(8), day(11)},
		{"days=3&start_date=2026-02-20&end_date=2026-02-21", day(20), day(22)},
	} {
		v, _ := url.ParseQuery(c.query)
		q, err := ParseListQuery(v, now)
		if err != nil || !q.From.Equal(c.from) || !q.To.Equal(c.to) {
			t.Errorf("%s: [%v, %v) %v, want [%v, %v)", c.query, q.From, q.To, err, c.from, c.to)
		}
	}
}

func TestParseListQuery(t *testing.T) {
	v, _ := url.ParseQuery("limit=500&offset=20&search=%20Boom%20&model=m&provider=p&user_path=team/a/&session_id=s&status=4xx&start_date=2026-03-01&end_date=2026-03-02")
	q, err := ParseListQuery(v, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := EntryQuery{Limit: MaxListLimit, Offset: 20, Search: "Boom", Model: "m", Provider: "p", UserPath: "/team/a",
		SessionID: "s", StatusClass: 4,
		From: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("got %+v\nwant %+v", q, want)
	}
	v, _ = url.ParseQuery("status=4xx,%20503,5xx&key_id=k1&error_code=rate_limit_exceeded&model_contains=%20Claude%20")
	q, err = ParseListQuery(v, time.Now())
	if err != nil || !reflect.DeepEqual(q.StatusAny, []int{4, 503, 5}) || q.StatusClass != 0 || q.KeyID != "k1" ||
		q.ErrorCode != "rate_limit_exceeded" || q.ModelContains != "Claude" {
		t.Fatalf("new filters: %+v (%v)", q, err)
	}
	for _, bad := range []string{"status=4xx,", "status=4xx,6xx", "status=,"} {
		v, _ := url.ParseQuery(bad)
		if _, err := ParseListQuery(v, time.Now()); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if !StatusMatches(429, []int{5, 4}) || StatusMatches(200, []int{4, 5}) || !StatusMatches(200, nil) || !StatusMatches(503, []int{503}) || StatusMatches(502, []int{503}) {
		t.Fatal("StatusMatches")
	}
	if q, _ := ParseListQuery(url.Values{"status": {"404"}}, time.Now()); q.StatusCode != 404 || q.Limit != DefaultListLimit {
		t.Fatalf("status 404: %+v", q)
	}
	for _, bad := range []string{"limit=0", "limit=x", "offset=-1", "status=99", "status=6xx", "status=abc",
		"user_path=a//b", "start_date=x", "start_date=2026-03-02&end_date=2026-03-01",
		"days=0", "days=367", "days=x", "days=1&end_date=x"} {
		v, _ := url.ParseQuery(bad)
		if _, err := ParseListQuery(v, time.Now()); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}
