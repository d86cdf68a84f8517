package audit

import (
	"errors"
	"time"
)

// ErrNotFound is returned by storage reads for an id that is not stored.
var ErrNotFound = errors.New("audit: not found")

// ErrBadCursor is returned by Sessions for a cursor it did not issue.
var ErrBadCursor = errors.New("audit: invalid cursor")

// Storage is everything the audit domain needs from a persistent store.
// The embedded bbolt store implements it; a networked one can later.
type Storage interface {
	EntryStorage
	UsageStorage
}

// EntryStorage keeps audit entries.
type EntryStorage interface {
	// AppendEntry queues e for writing and reports whether it was
	// accepted. It never blocks: a full queue rejects the entry. The
	// storage keeps e's id order, its secondary indexes and its AuditHour
	// aggregates in step with the entries, in the same transaction. e must
	// not be changed afterwards; e.ID must not be zero.
	AppendEntry(e *Entry) bool
	// Entry returns the entry with that id, bodies included, or
	// ErrNotFound.
	Entry(id ID) (*Entry, error)
	// ListEntries returns the entries matching q, newest first, without
	// bodies (Data.WithoutBodies), and how many match in all.
	ListEntries(q EntryQuery) (EntryPage, error)
	// SessionEntryIDs returns the ids of the entries of one session of one
	// user path, oldest first.
	SessionEntryIDs(userPath, sessionID string) ([]ID, error)
	// AuditHours returns the stored AuditHour rows whose hour lies in
	// [from, to), in hour order.
	AuditHours(from, to time.Time) ([]AuditHour, error)
	// DeleteEntriesBefore deletes up to max of the oldest entries made
	// before cutoff, with their index entries, in one transaction, and
	// returns how many it deleted. AuditHour rows of hours that end at or
	// before cutoff go with them.
	DeleteEntriesBefore(cutoff time.Time, max int) (int, error)
}

// UsageStorage keeps usage records and their aggregates.
type UsageStorage interface {
	// AppendUsage queues r for writing and reports whether it was
	// accepted. It never blocks. The storage adds r to its hour and day
	// UsageAggregate rows, to its hour, day and month BreakdownRow rows
	// (see their AddRecord) and to
	// its session's SessionTotals when r has a session, in the same
	// transaction. r must not be changed afterwards; r.ID
	// must not be zero.
	AppendUsage(r *UsageRecord) bool
	// Breakdown returns the stored breakdown rows that s selects (see
	// BreakdownSelect).
	Breakdown(s BreakdownSelect) ([]BreakdownRow, error)
	// UsageAggregates returns the stored rows of one granularity whose
	// period starts in [from, to), in time order.
	UsageAggregates(g Granularity, from, to time.Time) ([]UsageAggregate, error)
	// UsageRecords calls fn for every record made in [from, to), oldest
	// first, until fn returns false.
	UsageRecords(from, to time.Time, fn func(*UsageRecord) bool) error
	// Sessions returns sessions whose last activity lies in
	// [q.From, q.To) (zero bounds are open), most recent activity first,
	// limited to q.UserPath and the paths below it when set and to
	// sessions that used q.Model when set, continuing
	// after q.Cursor; and the cursor of the next page, "" after the last.
	Sessions(q SessionQuery) ([]SessionTotals, string, error)
	// DeleteUsageBefore deletes up to max of the oldest usage records made
	// before cutoff, and up to max sessions whose last activity is before
	// cutoff, in one transaction, and returns how many records and
	// sessions it deleted: a result below max means none is left. Hour
	// aggregates and breakdown rows of hours that end at or before cutoff
	// go with them; day aggregates and day and month breakdown rows are
	// kept, so summaries outlive raw records.
	DeleteUsageBefore(cutoff time.Time, max int) (int, error)
}

// BreakdownSelect selects breakdown rows.
type BreakdownSelect struct {
	// Granularity is the rows' period.
	Granularity Granularity
	// From and To bound the rows' period start to [From, To); zero bounds
	// are open.
	From, To time.Time
	// Filter keeps the rows it matches.
	Filter UsageFilter
	// By, when set, sums the selected rows per value of that dimension
	// (ByUserPath: the whole path), in no particular order: each sum
	// carries only its dimension's value, the other dimensions and Start
	// are zero. When empty, every selected row is returned as stored, in
	// period then key order.
	By BreakdownBy
}

// Granularity is the period of a UsageAggregate row.
type Granularity int

// Aggregate granularities.
const (
	// Hourly rows cover one UTC hour.
	Hourly Granularity = iota
	// Daily rows cover one UTC day.
	Daily
	// Monthly rows cover one UTC calendar month; only breakdown rows
	// have them.
	Monthly
)

// Truncate returns the start of the period that contains t, in UTC.
func (g Granularity) Truncate(t time.Time) time.Time {
	t = t.UTC()
	switch g {
	case Daily:
		return t.Truncate(24 * time.Hour)
	case Monthly:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// EntryQuery selects audit entries. Empty fields do not filter.
type EntryQuery struct {
	// From and To bound the entries' time to [From, To); a zero bound is
	// open.
	From, To time.Time
	// Model matches the requested or the resolved model exactly.
	Model string
	// Provider matches the provider instance name or the provider type
	// exactly.
	Provider string
	// UserPath matches the user path exactly.
	UserPath string
	// UserPathUnder keeps the entries of that user path and of the paths
	// below it (userpath.Covers).
	UserPathUnder string
	// SessionID matches the session id exactly, under any user path.
	SessionID string
	// StatusCode, when not zero, matches that status exactly.
	StatusCode int
	// StatusClass, when not zero, matches statuses from 100×StatusClass
	// to 100×StatusClass+99.
	StatusClass int
	// StatusAny, when not empty, matches a status that is any of its
	// elements: a code (100 to 599) or a class (1 to 5, as StatusClass).
	StatusAny []int
	// KeyID matches the managed key id (AuthKeyID) exactly.
	KeyID string
	// ErrorCode matches the gateway error code (Data.ErrorCode) exactly.
	ErrorCode string
	// ModelContains, when not empty, keeps entries whose requested or
	// resolved model contains it, ignoring case.
	ModelContains string
	// Search, when not empty, keeps entries where it occurs (ignoring
	// case) in the id, request id, session id, method, path, user path,
	// models, providers, error type, code or message, key id, principal,
	// client address or user agent. Bodies are not searched.
	Search string
	// Limit is the page size; Offset the number of matches skipped.
	Limit, Offset int
}

// EntryPage is one page of a list.
type EntryPage struct {
	// Entries are the page's entries, newest first, without bodies.
	Entries []*Entry
	// Total counts every match of the query, on any page.
	Total int
}

// SessionQuery selects a page of sessions.
type SessionQuery struct {
	// From and To bound the sessions' last activity to [From, To); zero
	// bounds are open.
	From, To time.Time
	// UserPath, when set, keeps sessions of that path and of the paths
	// below it.
	UserPath string
	// Model, when set, keeps sessions that used that model (one of their
	// SessionTotals.Models).
	Model string
	// Limit is the page size.
	Limit int
	// Cursor continues after a previous page; "" starts at the most
	// recent session.
	Cursor string
}
