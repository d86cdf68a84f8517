package boltstore

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// usageWrite is one encoded usage record waiting for the writer.
type usageWrite struct {
	id      [16]byte
	rec     []byte
	r       *audit.UsageRecord
	hourKey []byte
	dayKey  []byte
	// bdHourKey, bdDayKey and bdMonthKey are the keys of r's breakdown
	// rows.
	bdHourKey, bdDayKey, bdMonthKey []byte
	sessKey                         []byte // nil without a session
	aggs                            *batchAggs
}

// AppendUsage encodes r and queues it with its hour and day aggregates and
// its session's totals. It reports false, without blocking, when the queue
// is full or r has no id. A record that can never be stored (it does not
// encode, its aggregate or session key is too long for bbolt) is dropped
// and counted as AppendEntry does, under kind "usage".
func (a *Audit) AppendUsage(r *audit.UsageRecord) bool {
	w, err := a.newUsageWrite(r)
	if err != nil {
		a.rejected.Add(1)
		if errors.Is(err, errNoID) {
			return false
		}
		a.s.DropRecord(KindUsage, err)
		return true
	}
	return a.s.Enqueue(store.Write{Kind: KindUsage, Apply: w.apply})
}

// newUsageWrite encodes r for the writer.
func (a *Audit) newUsageWrite(r *audit.UsageRecord) (*usageWrite, error) {
	if r.ID.IsZero() {
		return nil, errNoID
	}
	// The record and its row keys share one buffer.
	keys := 2*(8+3*binary.MaxVarintLen64+len(r.UserPath)+len(r.ProviderName)+len(r.Model)) +
		2*binary.MaxVarintLen64 + len(r.UserPath) + len(r.SessionID)
	rec, err := appendUsage(make([]byte, 0, usageSize(r)+keys), r)
	if err != nil {
		return nil, store.Unstorable("encoding", err)
	}
	w := &usageWrite{id: r.ID, rec: rec[:len(rec):len(rec)], r: r, aggs: a.aggs}
	rest := rec[len(rec):]
	carve := func(b []byte) []byte {
		rest = b[len(b):]
		return b[:len(b):len(b)]
	}
	w.hourKey = carve(appendUsageAggKey(rest, audit.Hourly.Truncate(r.ID.Time()), r))
	w.dayKey = carve(appendUsageAggKey(rest, audit.Daily.Truncate(r.ID.Time()), r))
	w.bdHourKey = breakdownKey(audit.Hourly.Truncate(r.ID.Time()), r)
	w.bdDayKey = breakdownKey(audit.Daily.Truncate(r.ID.Time()), r)
	w.bdMonthKey = breakdownKey(audit.Monthly.Truncate(r.ID.Time()), r)
	if r.SessionID != "" {
		w.sessKey = carve(appendLP(appendLP(rest, r.UserPath), r.SessionID))
	}
	// The recent-sessions key adds a timestamp to the session key.
	if len(w.hourKey) > bbolt.MaxKeySize || len(w.bdHourKey) > bbolt.MaxKeySize || len(w.sessKey)+8 > bbolt.MaxKeySize {
		return nil, errKeyTooLarge
	}
	return w, nil
}

// apply writes the record and adds it to its hour and day rows and its
// session in the batch's sums (written when the batch ends, keeping the
// session's place in latest-activity order).
func (w *usageWrite) apply(tx *bbolt.Tx) error {
	if err := put(tx, bucketUsage, w.id[:], w.rec); err != nil {
		return err
	}
	w.aggs.addUsage(w)
	return nil
}

// UsageRecords calls fn for every record made in [from, to), oldest first,
// until fn returns false. Zero bounds are open.
func (a *Audit) UsageRecords(from, to time.Time, fn func(*audit.UsageRecord) bool) error {
	return a.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketUsage)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		var k, v []byte
		if from.IsZero() {
			k, v = c.First()
		} else {
			lo := audit.MinID(from)
			k, v = c.Seek(lo[:])
		}
		var hi audit.ID
		if !to.IsZero() {
			hi = audit.MinID(to)
		}
		for ; k != nil; k, v = c.Next() {
			if !to.IsZero() && string(k) >= string(hi[:]) {
				break
			}
			r, err := decodeUsage(k, v)
			if err != nil {
				return err
			}
			if !fn(r) {
				break
			}
		}
		return nil
	})
}

// appendUsageAggKey appends the key of r's row of the period that starts
// at start: period start, user path, provider, model.
func appendUsageAggKey(b []byte, start time.Time, r *audit.UsageRecord) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(start.Unix()))
	b = appendLP(b, r.UserPath)
	b = appendLP(b, r.ProviderName)
	return appendLP(b, r.Model)
}

// aggVersion starts every encoded UsageAggregate and SessionTotals: 2
// keeps the cost as a varint of catalog.Nanos. Version 1, written
// before, kept it as a float64 (8 bytes) and reads rounded to Nanos.
const (
	aggVersion      = 2
	aggVersionFloat = 1
)

// appendCost appends an aggregate's cost.
func appendCost(b []byte, c catalog.Nanos) []byte { return binary.AppendVarint(b, int64(c)) }

// readCost reads an aggregate's cost of a row of version v.
func readCost(b []byte, v byte) (catalog.Nanos, []byte, bool) {
	if v == aggVersionFloat {
		f, rest, ok := readFloat(b)
		return catalog.NanosOf(f), rest, ok
	}
	n, rest, ok := readVarint(b)
	return catalog.Nanos(n), rest, ok
}

// aggVersionOf returns the version of a stored row, and false when it is
// none of them.
func aggVersionOf(b []byte) (byte, bool) {
	if len(b) == 0 || (b[0] != aggVersion && b[0] != aggVersionFloat) {
		return 0, false
	}
	return b[0], true
}

// appendTokens appends the six token counts.
func appendTokens(b []byte, u *catalog.Usage) []byte {
	for _, v := range [...]int64{u.InputTokens, u.OutputTokens, u.TotalTokens,
		u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// readTokens reads the six token counts.
func readTokens(b []byte, u *catalog.Usage) ([]byte, bool) {
	var ok bool
	for _, dst := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens,
		&u.CachedInputTokens, &u.CacheWriteInputTokens, &u.ReasoningTokens} {
		if *dst, b, ok = readVarint(b); !ok {
			return nil, false
		}
	}
	return b, true
}

// appendFloat appends f as 8 bytes.
func appendFloat(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
}

// readFloat reads 8 bytes as a float.
func readFloat(b []byte) (float64, []byte, bool) {
	if len(b) < 8 {
		return 0, nil, false
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), b[8:], true
}

// encodeUsageAgg encodes the sums of a.
func encodeUsageAgg(a *audit.UsageAggregate) []byte {
	b := make([]byte, 0, 64)
	b = append(b, aggVersion)
	b = binary.AppendVarint(b, a.Requests)
	b = binary.AppendVarint(b, a.CacheHits)
	b = binary.AppendVarint(b, a.Unpriced)
	b = appendTokens(b, &a.Tokens)
	return appendCost(b, a.Cost)
}

// decodeUsageAggSums decodes the sums of a row into a (not its key).
func decodeUsageAggSums(b []byte, a *audit.UsageAggregate) error {
	v, ok := aggVersionOf(b)
	if !ok {
		return errCorrupt
	}
	b = b[1:]
	for _, dst := range [...]*int64{&a.Requests, &a.CacheHits, &a.Unpriced} {
		if *dst, b, ok = readVarint(b); !ok {
			return errCorrupt
		}
	}
	if b, ok = readTokens(b, &a.Tokens); !ok {
		return errCorrupt
	}
	if a.Cost, _, ok = readCost(b, v); !ok {
		return errCorrupt
	}
	return nil
}

// decodeUsageAgg decodes a row stored under key k.
func decodeUsageAgg(k, v []byte) (audit.UsageAggregate, error) {
	var a audit.UsageAggregate
	if len(k) < 8 {
		return a, errCorrupt
	}
	a.Start = keyTime(k)
	rest := k[8:]
	for _, dst := range [...]*string{&a.UserPath, &a.Provider, &a.Model} {
		s, r, ok := readLP(rest)
		if !ok {
			return a, errCorrupt
		}
		*dst, rest = string(s), r
	}
	return a, decodeUsageAggSums(v, &a)
}

// sessionKey is the key of a session's totals: user path, session id.
func sessionKey(userPath, session string) []byte {
	b := make([]byte, 0, 4+len(userPath)+len(session))
	return appendLP(appendLP(b, userPath), session)
}

// recentKey is the key of a session in latest-activity order: last
// activity (Unix nanoseconds), then the session key.
func recentKey(lastSeen time.Time, sessKey []byte) []byte {
	return appendRecentKey(make([]byte, 0, 8+len(sessKey)), lastSeen, sessKey)
}

// appendRecentKey appends the recentKey of a session to b.
func appendRecentKey(b []byte, lastSeen time.Time, sessKey []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(lastSeen.UnixNano()))
	return append(b, sessKey...)
}

// parseSessionKey splits a session key.
func parseSessionKey(k []byte) (userPath, session string, ok bool) {
	p, rest, ok := readLP(k)
	if !ok {
		return "", "", false
	}
	s, rest, ok := readLP(rest)
	if !ok || len(rest) != 0 {
		return "", "", false
	}
	return string(p), string(s), true
}

// appendSession appends the encoded totals of s to b.
func appendSession(b []byte, s *audit.SessionTotals) []byte {
	b = append(b, aggVersion)
	b = binary.AppendVarint(b, s.FirstSeen.UnixNano())
	b = binary.AppendVarint(b, s.LastSeen.UnixNano())
	b = binary.AppendVarint(b, s.Requests)
	b = binary.AppendVarint(b, s.CacheHits)
	b = appendTokens(b, &s.Usage)
	b = appendCost(b, s.Cost)
	b = binary.AppendUvarint(b, uint64(len(s.Models)))
	for _, m := range s.Models {
		b = appendLP(b, m)
	}
	return b
}

// decodeSession decodes a session's totals stored under key k.
func decodeSession(k, b []byte) (audit.SessionTotals, error) {
	var s audit.SessionTotals
	var ok bool
	if s.UserPath, s.SessionID, ok = parseSessionKey(k); !ok {
		return s, errCorrupt
	}
	return s, decodeSessionSums(b, &s)
}

// decodeSessionSums decodes a session's totals but its key into s.
func decodeSessionSums(b []byte, s *audit.SessionTotals) error {
	v, ok := aggVersionOf(b)
	if !ok {
		return errCorrupt
	}
	b = b[1:]
	var first, last int64
	for _, dst := range [...]*int64{&first, &last, &s.Requests, &s.CacheHits} {
		if *dst, b, ok = readVarint(b); !ok {
			return errCorrupt
		}
	}
	s.FirstSeen, s.LastSeen = time.Unix(0, first).UTC(), time.Unix(0, last).UTC()
	if b, ok = readTokens(b, &s.Usage); !ok {
		return errCorrupt
	}
	if s.Cost, b, ok = readCost(b, v); !ok {
		return errCorrupt
	}
	n, b, ok := readUvarint(b)
	if !ok || n > audit.MaxSessionModels {
		return errCorrupt
	}
	s.Models = make([]string, 0, n)
	for range n {
		m, rest, ok := readLP(b)
		if !ok {
			return errCorrupt
		}
		s.Models, b = append(s.Models, string(m)), rest
	}
	return nil
}
