package boltstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// errCorrupt reports a stored value this code cannot decode.
var errCorrupt = errors.New("boltstore: corrupt audit value")

// Strings inside keys and binary values are length-prefixed (uvarint
// length, then the bytes), so any byte may appear in them and no encoded
// string is a prefix of another.

// appendLP appends s length-prefixed.
func appendLP(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// readLP reads one length-prefixed string from b; the result aliases b.
func readLP(b []byte) (s, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// readUvarint reads one uvarint from b.
func readUvarint(b []byte) (v uint64, rest []byte, ok bool) {
	v, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, nil, false
	}
	return v, b[k:], true
}

// readVarint reads one signed varint from b.
func readVarint(b []byte) (v int64, rest []byte, ok bool) {
	v, k := binary.Varint(b)
	if k <= 0 {
		return 0, nil, false
	}
	return v, b[k:], true
}

// timeKey is the 8-byte big-endian Unix second of t: the time prefix of
// aggregate keys.
func timeKey(t time.Time) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 64), uint64(t.Unix()))
}

// keyTime reads a timeKey prefix.
func keyTime(k []byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint64(k[:8])), 0).UTC()
}

// Secondary index fields of audit entries. An index key is the field byte,
// the length-prefixed value and the entry's 16-byte id, with an empty
// value, so one value's entries are contiguous and in time order.
const (
	idxSession     = 's'
	idxUserPath    = 'u'
	idxModel       = 'm'
	idxProvider    = 'p'
	idxStatusClass = 'k'
	// idxStatusCode is not an index: an exact status filter walks the
	// class index and checks the code on each candidate's meta.
	idxStatusCode = 'c'
)

// idxPrefix returns the index key prefix of one field value.
func idxPrefix(field byte, val string) []byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(val)+16)
	b = append(b, field)
	return appendLP(b, val)
}

// entryMeta is the compact part of an entry that lists filter on and
// retention needs to find the entry's index terms: at the front of a
// binary head, or in bucketMeta for a JSON head, so that neither decodes
// the whole entry.
type entryMeta struct {
	status                             int
	userPath, session                  []byte
	reqModel, resModel                 []byte
	providerName, providerType, search []byte
}

// metaVersion starts every entryMeta in bucketMeta.
const metaVersion = 1

// decodeMeta decodes an entryMeta of bucketMeta; its fields alias b.
func decodeMeta(b []byte) (m entryMeta, err error) {
	if len(b) == 0 || b[0] != metaVersion {
		return m, errCorrupt
	}
	m, _, err = readMeta(b[1:])
	return m, err
}

// searchText is e's search text (see records.AppendSearchText).
func searchText(e *audit.Entry) string {
	var buf [512]byte
	return string(appendSearch(buf[:0], e))
}

// appendSearch appends e's search text to b (see
// records.AppendSearchText); it is stored unchanged in the meta.
func appendSearch(b []byte, e *audit.Entry) []byte { return records.AppendSearchText(b, e) }

// appendLower appends s in lower case and a newline (see
// records.AppendLower).
func appendLower(b []byte, s string) []byte { return records.AppendLower(b, s) }

// terms returns the index terms of entry id from its meta, each the
// term's idxPrefix followed by the id's slot (see postings), in one
// allocation.
func (m *entryMeta) terms(id []byte) [][]byte {
	var fs [7]byte
	var vs [7][]byte
	n := 0
	add := func(field byte, v []byte) {
		fs[n], vs[n] = field, v
		n++
	}
	if len(m.session) > 0 {
		add(idxSession, m.session)
	}
	add(idxUserPath, m.userPath)
	if len(m.reqModel) > 0 {
		add(idxModel, m.reqModel)
	}
	if len(m.resModel) > 0 && !bytes.Equal(m.resModel, m.reqModel) {
		add(idxModel, m.resModel)
	}
	if len(m.providerName) > 0 {
		add(idxProvider, m.providerName)
	}
	if len(m.providerType) > 0 && !bytes.Equal(m.providerType, m.providerName) {
		add(idxProvider, m.providerType)
	}
	class := [1]byte{byte('0' + m.status/100%10)}
	add(idxStatusClass, class[:])
	size := 0
	for _, v := range vs[:n] {
		size += 1 + binary.MaxVarintLen64 + len(v) + slotLen
	}
	buf := make([]byte, 0, size)
	keys := make([][]byte, n)
	for i := range n {
		start := len(buf)
		buf = append(buf, fs[i])
		buf = binary.AppendUvarint(buf, uint64(len(vs[i])))
		buf = append(buf, vs[i]...)
		buf = append(buf, id[:slotLen]...)
		keys[i] = buf[start:len(buf):len(buf)]
	}
	return keys
}

// Bodies are stored apart from the head, so that lists never read them.
// A bodies record is bodiesVersion1 (or bodiesVersion), then the request
// body (version 1 only), then the bodies list of records.AppendBodyList
// (the response body, the attempts' and the revisions' bodies). Entries
// with a binary head keep a version 1 record in a body chunk; those with a
// JSON head keep a version 2 record in bucketBodies and the request body
// alone in bucketRequestBodies.
const (
	bodiesVersion1 = 1
	bodiesVersion  = 2
)

// bodiesSize returns the size of d's version 1 bodies record, 0 when d
// has no body.
func bodiesSize(d *audit.Data) int { return records.BodiesSize(d, true) }

// appendBodies appends w's version 1 bodies record.
func appendBodies(b []byte, w *entryWrite) []byte {
	b = append(b, bodiesVersion1)
	b = records.AppendBody(b, w.reqBody)
	return records.AppendBodyList(b, w.respBody, w.attempts, w.revisions)
}

// appendBody appends one length-prefixed body (see records.AppendBody).
func appendBody(b []byte, m json.RawMessage) []byte { return records.AppendBody(b, m) }

// decodeHead decodes a stored head (see audit.DecodeEntry).
func decodeHead(b []byte) (*audit.Entry, error) {
	e, err := audit.DecodeEntry(b)
	if err != nil {
		return nil, fmt.Errorf("boltstore: %w", err)
	}
	return e, nil
}

// restoreRequestBody puts a stored request body back into e.
func restoreRequestBody(e *audit.Entry, b []byte) {
	if e.Data == nil {
		e.Data = &audit.Data{}
	}
	e.Data.RequestBody = records.ReadableBody(b)
}

// restoreBodies puts a stored bodies record back into e.
func restoreBodies(e *audit.Entry, b []byte) error {
	if len(b) == 0 || (b[0] != bodiesVersion && b[0] != bodiesVersion1) {
		return errCorrupt
	}
	if e.Data == nil {
		e.Data = &audit.Data{}
	}
	d := e.Data
	version := b[0]
	b = b[1:]
	var ok bool
	if version == bodiesVersion1 {
		if d.RequestBody, b, ok = records.ReadBody(b); !ok {
			return errCorrupt
		}
	}
	if !records.ReadBodyList(d, b) {
		return errCorrupt
	}
	return nil
}

// auditHourKey is the key of an AuditHour row: hour, provider.
func auditHourKey(h *audit.AuditHour) []byte {
	return appendLP(timeKey(h.Hour), h.Provider)
}

// hourVersion starts every encoded AuditHour.
const hourVersion = 1

// encodeAuditHour encodes the sums of h.
func encodeAuditHour(h *audit.AuditHour) []byte {
	b := make([]byte, 0, 64)
	b = append(b, hourVersion)
	for _, v := range [...]int64{h.Requests, h.Status2xx, h.Status4xx, h.Status5xx, h.StatusOther,
		h.DurationNs, h.LatencyCount, h.LatencyNs} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// decodeAuditHour decodes a row stored under key k.
func decodeAuditHour(k, b []byte) (audit.AuditHour, error) {
	var h audit.AuditHour
	if len(k) < 8 || len(b) == 0 || b[0] != hourVersion {
		return h, errCorrupt
	}
	h.Hour = keyTime(k)
	p, _, ok := readLP(k[8:])
	if !ok {
		return h, errCorrupt
	}
	h.Provider = string(p)
	b = b[1:]
	for _, dst := range [...]*int64{&h.Requests, &h.Status2xx, &h.Status4xx, &h.Status5xx, &h.StatusOther,
		&h.DurationNs, &h.LatencyCount, &h.LatencyNs} {
		if *dst, b, ok = readVarint(b); !ok {
			return h, errCorrupt
		}
	}
	return h, nil
}
