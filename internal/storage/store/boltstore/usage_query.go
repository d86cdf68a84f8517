package boltstore

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// aggBucket returns the bucket of a granularity's rows.
func aggBucket(g audit.Granularity) []byte {
	if g == audit.Daily {
		return bucketUsageDays
	}
	return bucketUsageHours
}

// UsageAggregates returns the rows of granularity g whose period starts in
// [from, to), in time order; zero bounds are open.
func (a *Audit) UsageAggregates(g audit.Granularity, from, to time.Time) ([]audit.UsageAggregate, error) {
	var out []audit.UsageAggregate
	err := a.s.View(func(tx *bbolt.Tx) error {
		return eachInPeriod(tx.Bucket(aggBucket(g)), from, to, func(k, v []byte) error {
			row, err := decodeUsageAgg(k, v)
			if err == nil {
				out = append(out, row)
			}
			return err
		})
	})
	return out, err
}

// cursorEncoding encodes session cursors: the recent-order key of the last
// session of the previous page.
var cursorEncoding = base64.RawURLEncoding

// Sessions returns sessions whose last activity lies in [q.From, q.To),
// most recent first, continuing after q.Cursor, and the next page's
// cursor ("" after the last page). With q.UserPath set, only sessions of
// that path and the paths below it count; with q.Model, only sessions
// that used that model.
func (a *Audit) Sessions(q audit.SessionQuery) ([]audit.SessionTotals, string, error) {
	var start []byte
	if q.Cursor != "" {
		k, err := cursorEncoding.DecodeString(q.Cursor)
		if err != nil || len(k) <= 8 {
			return nil, "", audit.ErrBadCursor
		}
		if _, _, ok := parseSessionKey(k[8:]); !ok {
			return nil, "", audit.ErrBadCursor
		}
		start = k
	}
	var (
		out  []audit.SessionTotals
		next string
	)
	err := a.s.View(func(tx *bbolt.Tx) error {
		recent, sessions := tx.Bucket(bucketSessionsRecent), tx.Bucket(bucketSessions)
		if recent == nil || sessions == nil {
			return nil
		}
		c := recent.Cursor()
		var k []byte
		switch {
		case start != nil:
			// Continue strictly after (older than) the cursor's key.
			if k, _ = c.Seek(start); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		case !q.To.IsZero():
			if k, _ = c.Seek(binary.BigEndian.AppendUint64(nil, uint64(q.To.UnixNano()))); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		default:
			k, _ = c.Last()
		}
		var lo []byte
		if !q.From.IsZero() {
			lo = binary.BigEndian.AppendUint64(nil, uint64(q.From.UnixNano()))
		}
		for ; k != nil; k, _ = c.Prev() {
			if len(k) <= 8 || (lo != nil && bytes.Compare(k[:8], lo) < 0) {
				break
			}
			if !q.To.IsZero() && int64(binary.BigEndian.Uint64(k[:8])) >= q.To.UnixNano() {
				continue
			}
			path, _, ok := parseSessionKey(k[8:])
			if !ok {
				return errCorrupt
			}
			if q.UserPath != "" && !userpath.Covers(q.UserPath, path) {
				continue
			}
			var s audit.SessionTotals
			if q.Model != "" {
				// Only the totals name the models.
				var err error
				if s, err = decodeSession(k[8:], sessions.Get(k[8:])); err != nil {
					return err
				}
				if !slices.Contains(s.Models, q.Model) {
					continue
				}
			}
			if len(out) == q.Limit {
				next = cursorEncoding.EncodeToString(lastKey(out))
				return nil
			}
			if q.Model == "" {
				var err error
				if s, err = decodeSession(k[8:], sessions.Get(k[8:])); err != nil {
					return err
				}
			}
			out = append(out, s)
		}
		return nil
	})
	return out, next, err
}

// lastKey is the recent-order key of the last session of a page.
func lastKey(page []audit.SessionTotals) []byte {
	s := &page[len(page)-1]
	return recentKey(s.LastSeen, sessionKey(s.UserPath, s.SessionID))
}
