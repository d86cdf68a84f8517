package boltstore

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/userpath"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// Entry returns the entry with that id, bodies included, or
// audit.ErrNotFound.
func (a *Audit) Entry(id audit.ID) (*audit.Entry, error) {
	var e *audit.Entry
	err := a.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketEntries)
		if b == nil {
			return audit.ErrNotFound
		}
		v := b.Get(id[:])
		if v == nil {
			return audit.ErrNotFound
		}
		var err error
		if e, err = decodeStoredHead(id[:], v); err != nil {
			return err
		}
		if isBinaryHead(v) {
			return restoreChunkBodies(tx, e, v)
		}
		if rb := tx.Bucket(bucketRequestBodies); rb != nil {
			if v := rb.Get(id[:]); v != nil {
				restoreRequestBody(e, v)
			}
		}
		if bb := tx.Bucket(bucketBodies); bb != nil {
			if v := bb.Get(id[:]); v != nil {
				return restoreBodies(e, v)
			}
		}
		return nil
	})
	return e, err
}

// restoreChunkBodies puts the bodies a binary head points to back into e.
func restoreChunkBodies(tx *bbolt.Tx, e *audit.Entry, head []byte) error {
	key, off, n := bodiesRef(head)
	if n == 0 {
		return nil
	}
	var chunk []byte
	if b := tx.Bucket(bucketBodyChunks); b != nil {
		chunk = b.Get(key)
	}
	chunk, err := records.Open(chunk)
	if err != nil {
		return fmt.Errorf("%w: body chunk: %v", errCorrupt, err)
	}
	if off+n > len(chunk) {
		return errCorrupt
	}
	return restoreBodies(e, chunk[off:off+n])
}

// metaReader finds the meta of an entry in either head format.
type metaReader struct {
	entries, metas *bbolt.Bucket
}

// newMetaReader returns a metaReader for tx, or false when there are no
// entries.
func newMetaReader(tx *bbolt.Tx) (metaReader, bool) {
	r := metaReader{entries: tx.Bucket(bucketEntries), metas: tx.Bucket(bucketMeta)}
	return r, r.entries != nil
}

// meta returns the meta of entry id; its fields alias the store.
func (r metaReader) meta(id []byte) (entryMeta, error) {
	return r.metaOf(id, r.entries.Get(id))
}

// metaOf returns the meta of entry id whose head is v.
func (r metaReader) metaOf(id, v []byte) (entryMeta, error) {
	if isBinaryHead(v) {
		m, _, err := readMeta(v[headMetaAt:])
		return m, err
	}
	if r.metas == nil {
		return entryMeta{}, errCorrupt
	}
	return decodeMeta(r.metas.Get(id))
}

// cond is one indexed filter of a list query.
type cond struct {
	field byte
	val   string
	num   int // status code or class
}

// match reports whether an entry's meta passes the filter.
func (c *cond) match(m *entryMeta) bool {
	switch c.field {
	case idxSession:
		return string(m.session) == c.val
	case idxUserPath:
		return string(m.userPath) == c.val
	case idxModel:
		return string(m.reqModel) == c.val || string(m.resModel) == c.val
	case idxProvider:
		return string(m.providerName) == c.val || string(m.providerType) == c.val
	case idxStatusCode:
		return m.status == c.num
	case idxStatusClass:
		return m.status/100 == c.num
	}
	return false
}

// conds returns q's indexed filters, the most selective kind first: the
// first one drives the scan, the others are checked on each candidate.
func conds(q *audit.EntryQuery) []cond {
	var cs []cond
	if q.SessionID != "" {
		cs = append(cs, cond{field: idxSession, val: q.SessionID})
	}
	if q.Model != "" {
		cs = append(cs, cond{field: idxModel, val: q.Model})
	}
	if q.UserPath != "" {
		cs = append(cs, cond{field: idxUserPath, val: q.UserPath})
	}
	if q.Provider != "" {
		cs = append(cs, cond{field: idxProvider, val: q.Provider})
	}
	class := q.StatusClass
	if q.StatusCode != 0 {
		class = q.StatusCode / 100
	}
	if class != 0 {
		cs = append(cs, cond{field: idxStatusClass, val: string(rune('0' + class%10)), num: class})
	}
	if q.StatusCode != 0 {
		// Checked on the meta of candidates; there is no exact-code index.
		cs = append(cs, cond{field: idxStatusCode, num: q.StatusCode})
	}
	return cs
}

// idBounds returns the key bounds [lo, hi) of ids made in [from, to); nil
// for an open bound.
func idBounds(from, to time.Time) (lo, hi []byte) {
	if !from.IsZero() {
		id := audit.MinID(from)
		lo = id[:]
	}
	if !to.IsZero() {
		id := audit.MinID(to)
		hi = id[:]
	}
	return lo, hi
}

// successor returns the smallest key greater than every key starting with
// prefix, or nil when there is none (or prefix is empty).
func successor(prefix []byte) []byte {
	s := bytes.Clone(prefix)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xFF {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}

// newestFirst calls fn with the id of every key "prefix + id" of c's
// bucket whose id lies in [lo, hi), newest first, until fn returns false.
func newestFirst(c *bbolt.Cursor, prefix, lo, hi []byte, fn func(id []byte) bool) {
	var upper []byte
	if hi != nil {
		upper = append(bytes.Clone(prefix), hi...)
	} else {
		upper = successor(prefix)
	}
	var k []byte
	if upper == nil {
		k, _ = c.Last()
	} else if k, _ = c.Seek(upper); k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
		id := k[len(prefix):]
		if len(id) != 16 {
			continue
		}
		if lo != nil && bytes.Compare(id, lo) < 0 {
			return
		}
		if !fn(id) {
			return
		}
	}
}

// ListEntries returns the entries matching q, newest first, without
// bodies, and how many match in all.
//
// With an indexed filter the scan walks that filter's postings, newest
// first, checking any other filter on each candidate's compact meta; a
// search walks the heads' metas. The first page therefore costs the page,
// but Total counts every match: without filters it is summed from the
// hourly aggregates when the bounds fall on whole hours, and with one
// indexed filter alone it counts the ids of its postings, without reading
// entries.
func (a *Audit) ListEntries(q audit.EntryQuery) (audit.EntryPage, error) {
	var page audit.EntryPage
	err := a.s.View(func(tx *bbolt.Tx) error {
		metas, ok := newMetaReader(tx)
		if !ok {
			return nil
		}
		lo, hi := idBounds(q.From, q.To)
		cs := conds(&q)
		search := strings.ToLower(q.Search)
		post := newPostFilter(&q)
		var ids [][]byte
		total := 0
		// take counts a match and keeps it when it falls on the page.
		take := func(id []byte) {
			if total >= q.Offset && len(ids) < q.Limit {
				ids = append(ids, bytes.Clone(id))
			}
			total++
		}
		var bad error
		check := func(id []byte, cs []cond) bool {
			m, err := metas.meta(id)
			if err != nil {
				bad = err
				return false
			}
			for i := range cs {
				if !cs[i].match(&m) {
					return true
				}
			}
			if search != "" && !bytes.Contains(m.search, []byte(search)) {
				return true
			}
			if post != nil {
				ok, err := post.match(&m, func() []byte { return metas.entries.Get(id) }, id)
				if err != nil {
					bad = err
					return false
				}
				if !ok {
					return true
				}
			}
			take(id)
			return true
		}
		switch {
		case len(cs) == 0 && search == "" && post == nil:
			fromAggs := hourAligned(q.From) && hourAligned(q.To)
			newestFirst(metas.entries.Cursor(), nil, lo, hi, func(id []byte) bool {
				take(id)
				return !fromAggs || total < q.Offset+q.Limit
			})
			if fromAggs {
				n, err := auditHoursTotal(tx, q.From, q.To)
				if err != nil {
					return err
				}
				total = n
			}
		case len(cs) > 0:
			idx := tx.Bucket(bucketIndex)
			if idx == nil {
				return nil
			}
			rest := cs[1:]
			walkPostings(idx.Cursor(), idxPrefix(cs[0].field, cs[0].val), lo, hi, true, func(id []byte) bool {
				if len(rest) == 0 && search == "" && post == nil {
					take(id)
					return true
				}
				return check(id, rest)
			})
		default:
			newestFirst(metas.entries.Cursor(), nil, lo, hi, func(id []byte) bool { return check(id, nil) })
		}
		if bad != nil {
			return bad
		}
		page.Total = total
		page.Entries = make([]*audit.Entry, 0, len(ids))
		for _, id := range ids {
			v := metas.entries.Get(id)
			if v == nil {
				continue
			}
			e, err := decodeStoredHead(id, v)
			if err != nil {
				return err
			}
			page.Entries = append(page.Entries, e)
		}
		return nil
	})
	return page, err
}

// hourAligned reports whether t is an open bound or on a whole hour.
func hourAligned(t time.Time) bool {
	return t.IsZero() || t.Equal(t.Truncate(time.Hour))
}

// auditHoursTotal sums the requests of the hour rows in [from, to).
func auditHoursTotal(tx *bbolt.Tx, from, to time.Time) (int, error) {
	n := int64(0)
	err := eachAuditHour(tx, from, to, func(h audit.AuditHour) { n += h.Requests })
	return int(n), err
}

// eachAuditHour calls fn for every hour row in [from, to), in order; zero
// bounds are open.
func eachAuditHour(tx *bbolt.Tx, from, to time.Time, fn func(audit.AuditHour)) error {
	return eachInPeriod(tx.Bucket(bucketAuditHours), from, to, func(k, v []byte) error {
		h, err := decodeAuditHour(k, v)
		if err == nil {
			fn(h)
		}
		return err
	})
}

// eachInPeriod calls fn for every entry of b, a bucket whose keys start
// with an 8-byte time (timeKey), whose time is in [from, to), in key
// order; zero bounds are open, and a nil bucket has no entries.
func eachInPeriod(b *bbolt.Bucket, from, to time.Time, fn func(k, v []byte) error) error {
	if b == nil {
		return nil
	}
	c := b.Cursor()
	var k, v []byte
	if from.IsZero() {
		k, v = c.First()
	} else {
		k, v = c.Seek(timeKey(from))
	}
	var hi []byte
	if !to.IsZero() {
		hi = timeKey(to)
	}
	for ; k != nil; k, v = c.Next() {
		if hi != nil && bytes.Compare(k[:8], hi) >= 0 {
			break
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// AuditHours returns the hour rows whose hour lies in [from, to), in hour
// order.
func (a *Audit) AuditHours(from, to time.Time) ([]audit.AuditHour, error) {
	var out []audit.AuditHour
	err := a.s.View(func(tx *bbolt.Tx) error {
		return eachAuditHour(tx, from, to, func(h audit.AuditHour) { out = append(out, h) })
	})
	return out, err
}

// SessionEntryIDs returns the ids of the entries of one session of one
// user path, oldest first.
func (a *Audit) SessionEntryIDs(userPath, sessionID string) ([]audit.ID, error) {
	var out []audit.ID
	err := a.s.View(func(tx *bbolt.Tx) error {
		idx := tx.Bucket(bucketIndex)
		metas, ok := newMetaReader(tx)
		if idx == nil || !ok {
			return nil
		}
		var bad error
		walkPostings(idx.Cursor(), idxPrefix(idxSession, sessionID), nil, nil, false, func(id []byte) bool {
			m, err := metas.meta(id)
			if err != nil {
				bad = err
				return false
			}
			if string(m.userPath) == userPath {
				out = append(out, audit.ID(id))
			}
			return true
		})
		return bad
	})
	return out, err
}

// postFilter checks the filters no index serves (EntryQuery.StatusAny,
// ModelContains, UserPathUnder, KeyID, ErrorCode) on a candidate: on its
// meta first, and
// on its decoded head only for the key id and error code of a candidate
// whose search text holds them.
type postFilter struct {
	statusAny       []int
	modelContains   []byte
	keyID, errCode  string
	keyLine, ecLine []byte
	under           string // UserPathUnder
}

// newPostFilter returns q's post filter, nil when it has none.
func newPostFilter(q *audit.EntryQuery) *postFilter {
	if len(q.StatusAny) == 0 && q.ModelContains == "" && q.KeyID == "" && q.ErrorCode == "" && q.UserPathUnder == "" {
		return nil
	}
	p := &postFilter{statusAny: q.StatusAny, keyID: q.KeyID, errCode: q.ErrorCode, under: q.UserPathUnder,
		modelContains: []byte(strings.ToLower(q.ModelContains))}
	// The search text has one lower-case field a line.
	if q.KeyID != "" {
		p.keyLine = []byte("\n" + strings.ToLower(q.KeyID) + "\n")
	}
	if q.ErrorCode != "" {
		p.ecLine = []byte("\n" + strings.ToLower(q.ErrorCode) + "\n")
	}
	return p
}

// match reports whether the entry whose meta is m passes; head returns
// its stored head, read only when needed.
func (p *postFilter) match(m *entryMeta, head func() []byte, id []byte) (bool, error) {
	if !audit.StatusMatches(m.status, p.statusAny) {
		return false, nil
	}
	if p.under != "" && !userpath.Covers(p.under, string(m.userPath)) {
		return false, nil
	}
	if len(p.modelContains) > 0 && !bytes.Contains(bytes.ToLower(m.reqModel), p.modelContains) &&
		!bytes.Contains(bytes.ToLower(m.resModel), p.modelContains) {
		return false, nil
	}
	if p.keyLine == nil && p.ecLine == nil {
		return true, nil
	}
	if (p.keyLine != nil && !bytes.Contains(m.search, p.keyLine)) || (p.ecLine != nil && !bytes.Contains(m.search, p.ecLine)) {
		return false, nil
	}
	e, err := decodeStoredHead(id, head())
	if err != nil {
		return false, err
	}
	if p.keyID != "" && e.AuthKeyID != p.keyID {
		return false, nil
	}
	if p.errCode != "" && (e.Data == nil || e.Data.ErrorCode != p.errCode) {
		return false, nil
	}
	return true, nil
}
