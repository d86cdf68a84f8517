package audit

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// List limits.
const (
	// DefaultListLimit is the page size of a list that names none.
	DefaultListLimit = 50
	// MaxListLimit is the largest page size; larger limits are clamped.
	MaxListLimit = 200
)

// Queries answers the audit log reads over EntryStorage. With nil storage
// (audit logging off) every read answers empty: no entries, zero-filled
// statistics, never an error.
type Queries struct {
	st     EntryStorage
	now    func() time.Time
	settle settler
}

// NewQueries returns the audit log reads over st (nil: logging off), with
// now as the clock (nil: time.Now).
func NewQueries(st EntryStorage, now func() time.Time) *Queries {
	if now == nil {
		now = time.Now
	}
	return &Queries{st: st, now: now}
}

// ListResult is the answer of a list: one page and the total.
type ListResult struct {
	// Entries are the page's entries, newest first, without bodies.
	Entries []*Entry `json:"entries"`
	// Total counts the matches on every page.
	Total int `json:"total"`
	// Limit is the page size used.
	Limit int `json:"limit"`
	// Offset is the number of matches skipped.
	Offset int `json:"offset"`
}

// ParseListQuery reads a list query from the parameters limit (default
// DefaultListLimit, clamped to MaxListLimit), offset, search, model,
// model_contains, provider, user_path (exactly), user_path_under (that
// path and the paths below it), session_id, key_id, error_code,
// status (a code such as 404, a class such as 4xx, or a comma-separated
// list of them: 4xx,5xx) and start_date/end_date (YYYY-MM-DD, UTC, both included,
// either may be left open). days (1 to MaxDays) bounds the list to a
// window as ParseWindow reads it, now being the current time: the last
// days days, today included, or the days days up to end_date; explicit
// dates win over it. Invalid values are 400 errors naming the parameter.
func ParseListQuery(v url.Values, now time.Time) (EntryQuery, error) {
	q := EntryQuery{
		Limit:     DefaultListLimit,
		Search:    strings.TrimSpace(v.Get("search")),
		Model:     v.Get("model"),
		Provider:  v.Get("provider"),
		SessionID: v.Get("session_id"),
		KeyID:     v.Get("key_id"),
		ErrorCode: v.Get("error_code"),
		// Stored models have no surrounding spaces; neither has a
		// substring of one.
		ModelContains: strings.TrimSpace(v.Get("model_contains")),
	}
	var err error
	if q.Limit, err = intParam(v, "limit", DefaultListLimit, 1); err != nil {
		return q, err
	}
	q.Limit = min(q.Limit, MaxListLimit)
	if q.Offset, err = intParam(v, "offset", 0, 0); err != nil {
		return q, err
	}
	if p := v.Get("user_path"); p != "" {
		if q.UserPath, err = userpath.Normalize(p); err != nil {
			return q, badParam("user_path", err.Error())
		}
	}
	if p := v.Get("user_path_under"); p != "" {
		if q.UserPathUnder, err = userpath.Normalize(p); err != nil {
			return q, badParam("user_path_under", err.Error())
		}
		if q.UserPathUnder == userpath.Root {
			q.UserPathUnder = "" // every path is under the root
		}
	}
	if s := v.Get("status"); strings.Contains(s, ",") {
		for _, part := range strings.Split(s, ",") {
			code, class, err := parseStatus(strings.TrimSpace(part))
			if err != nil {
				return q, err
			}
			q.StatusAny = append(q.StatusAny, code+class)
		}
	} else if s != "" {
		if q.StatusCode, q.StatusClass, err = parseStatus(s); err != nil {
			return q, err
		}
	}
	if v.Has("days") {
		w, err := ParseWindow(v, now)
		if err != nil {
			return q, err
		}
		q.From, q.To = w.Start, w.End
		return q, nil
	}
	from, hasFrom, err := parseDate(v, "start_date")
	if err != nil {
		return q, err
	}
	to, hasTo, err := parseDate(v, "end_date")
	if err != nil {
		return q, err
	}
	if hasFrom && hasTo && to.Before(from) {
		return q, badParam("end_date", "end_date is before start_date")
	}
	if hasFrom {
		q.From = from
	}
	if hasTo {
		q.To = to.Add(day)
	}
	return q, nil
}

// parseStatus reads a status filter: a code from 100 to 599, or a class
// 1xx to 5xx.
func parseStatus(s string) (code, class int, err error) {
	if len(s) == 3 && (s[1:] == "xx" || s[1:] == "XX") && s[0] >= '1' && s[0] <= '5' {
		return 0, int(s[0] - '0'), nil
	}
	n, e := strconv.Atoi(s)
	if e != nil || n < 100 || n > 599 {
		return 0, 0, badParam("status", "status must be a status code (such as 404) or a class (such as 4xx)")
	}
	return n, 0, nil
}

// intParam reads an integer parameter of at least minimum, or def when
// absent. A whole number too large for an int counts as math.MaxInt, so
// the caller's clamp brings it inside its bound like any other large
// value instead of refusing it as not a number.
func intParam(v url.Values, name string, def, minimum int) (int, error) {
	if !v.Has(name) {
		return def, nil
	}
	s := v.Get(name)
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-") {
		n, err = math.MaxInt, nil
	}
	if err != nil || n < minimum {
		if minimum == 1 {
			return 0, badParam(name, name+" must be a positive integer")
		}
		return 0, badParam(name, fmt.Sprintf("%s must be an integer of at least %d", name, minimum))
	}
	return n, nil
}

// List returns one page of entries matching q, newest first, without
// bodies. Like every read of the audit log and of usage, it first
// commits what storage still has queued (see settle), so that it includes
// every request answered before it. A limit outside 1..MaxListLimit is
// brought inside it.
func (qs *Queries) List(q EntryQuery) (ListResult, error) {
	q.Limit = max(1, min(q.Limit, MaxListLimit))
	q.Offset = max(0, q.Offset)
	res := ListResult{Entries: []*Entry{}, Limit: q.Limit, Offset: q.Offset}
	if qs.st == nil {
		return res, nil
	}
	qs.settle.settle(qs.st)
	page, err := qs.st.ListEntries(q)
	if err != nil {
		return res, err
	}
	if page.Entries != nil {
		res.Entries = page.Entries
	}
	for _, e := range res.Entries {
		e.Data.fillLists()
	}
	res.Total = page.Total
	return res, nil
}

// Get returns one entry, bodies included: a 404 not_found_error when no
// entry has that id (or it is not an id).
func (qs *Queries) Get(id string) (*Entry, error) {
	parsed, err := ParseID(id)
	if err != nil || qs.st == nil {
		return nil, notFound()
	}
	qs.settle.settle(qs.st)
	e, err := qs.entry(parsed)
	if errors.Is(err, ErrNotFound) {
		return nil, notFound()
	}
	return e, err
}

// entry reads one entry, bodies included, as reads show it (fillLists).
func (qs *Queries) entry(id ID) (*Entry, error) {
	e, err := qs.st.Entry(id)
	if err == nil {
		e.Data.fillLists()
	}
	return e, err
}

// notFound is the 404 for an unknown entry id.
func notFound() *apierr.Error {
	return apierr.NotFound("no audit log entry has that id").WithCode("audit_entry_not_found")
}

// StatusMatches reports whether status passes statuses (see
// EntryQuery.StatusAny); an empty list passes every status.
func StatusMatches(status int, statuses []int) bool {
	if len(statuses) == 0 {
		return true
	}
	for _, s := range statuses {
		if s == status || (s < 10 && status/100 == s) {
			return true
		}
	}
	return false
}
