package boltstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelgate/modelgate/audit"
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

// idxKey returns the index key of one field value of entry id.
func idxKey(field byte, val string, id audit.ID) []byte {
	return append(idxPrefix(field, val), id[:]...)
}

// entryMeta is the compact part of an entry that lists filter on and
// retention needs to find the entry's index keys: stored apart from the
// entry so that neither decodes JSON.
type entryMeta struct {
	status                             int
	userPath, session                  []byte
	reqModel, resModel                 []byte
	providerName, providerType, search []byte
}

// metaVersion starts every encoded entryMeta.
const metaVersion = 1

// encodeMeta returns the entryMeta of e.
func encodeMeta(e *audit.Entry) []byte {
	search := searchText(e)
	b := make([]byte, 0, 16+len(e.UserPath)+len(e.SessionID)+len(e.RequestedModel)+
		len(e.ResolvedModel)+len(e.ProviderName)+len(e.Provider)+len(search))
	b = append(b, metaVersion)
	b = binary.AppendUvarint(b, uint64(max(0, e.StatusCode)))
	for _, s := range [...]string{e.UserPath, e.SessionID, e.RequestedModel, e.ResolvedModel,
		e.ProviderName, e.Provider, search} {
		b = appendLP(b, s)
	}
	return b
}

// decodeMeta decodes an entryMeta; its fields alias b.
func decodeMeta(b []byte) (m entryMeta, err error) {
	if len(b) == 0 || b[0] != metaVersion {
		return m, errCorrupt
	}
	st, b, ok := readUvarint(b[1:])
	if !ok {
		return m, errCorrupt
	}
	m.status = int(st)
	for _, dst := range [...]*[]byte{&m.userPath, &m.session, &m.reqModel, &m.resModel,
		&m.providerName, &m.providerType, &m.search} {
		if *dst, b, ok = readLP(b); !ok {
			return m, errCorrupt
		}
	}
	return m, nil
}

// searchText is the lower-case text EntryQuery.Search looks in, one field
// per line.
func searchText(e *audit.Entry) string {
	var sb strings.Builder
	add := func(s string) {
		if s != "" {
			sb.WriteString(strings.ToLower(s))
			sb.WriteByte('\n')
		}
	}
	add(e.ID.String())
	add(e.RequestID)
	add(e.SessionID)
	add(e.Method)
	add(e.Path)
	add(e.UserPath)
	add(e.RequestedModel)
	add(e.ResolvedModel)
	add(e.ProviderName)
	add(e.Provider)
	add(e.ErrorType)
	add(e.AuthKeyID)
	add(e.PrincipalID)
	add(e.ClientIP)
	if d := e.Data; d != nil {
		add(d.ErrorCode)
		add(d.ErrorMessage)
		add(d.UserAgent)
	}
	return sb.String()
}

// indexKeys returns the secondary index keys of an entry from its meta.
func (m *entryMeta) indexKeys(id audit.ID) [][]byte {
	keys := make([][]byte, 0, 8)
	add := func(field byte, v []byte) {
		keys = append(keys, idxKey(field, string(v), id))
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
	add(idxStatusClass, []byte{byte('0' + m.status/100%10)})
	return keys
}

// Bodies are stored apart from the rest of the entry, so that lists never
// read them. The request body is stored on its own (bucketRequestBodies);
// the others in a binary record: bodiesVersion, the response body (in
// version 1 records, the request body first), then the attempts' and the
// revisions' bodies, each list a count followed by its elements, every
// body length-prefixed (empty: none). Raw JSON is copied as it is, never
// re-encoded.
const (
	bodiesVersion1 = 1
	bodiesVersion  = 2
)

// encodeEntry returns the stored head (the entry without bodies) and the
// stored record of its bodies but the request body (nil when there are
// none) of e. Bodies are stored as recorded; one that is not valid JSON
// reads back as a JSON string of its text, so a stored entry always reads
// back as JSON.
func encodeEntry(e *audit.Entry) (head, bodies []byte, err error) {
	h := *e
	h.Data = e.Data.WithoutBodies()
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, fmt.Errorf("boltstore: encode audit entry: %w", err)
	}
	d := e.Data
	if d == nil {
		return head, nil, nil
	}
	size, some := 16, false
	count := func(m json.RawMessage) {
		size += len(m) + binary.MaxVarintLen32
		some = some || len(m) > 0
	}
	count(d.ResponseBody)
	for _, a := range d.Attempts {
		count(a.ResponseBody)
	}
	for _, r := range d.RequestRevisions {
		count(r.Body)
	}
	if !some {
		return head, nil, nil
	}
	b := make([]byte, 0, size)
	b = append(b, bodiesVersion)
	b = appendBody(b, d.ResponseBody)
	b = binary.AppendUvarint(b, uint64(len(d.Attempts)))
	for _, a := range d.Attempts {
		b = appendBody(b, a.ResponseBody)
	}
	b = binary.AppendUvarint(b, uint64(len(d.RequestRevisions)))
	for _, r := range d.RequestRevisions {
		b = appendBody(b, r.Body)
	}
	return head, b, nil
}

// appendBody appends one length-prefixed body as it was recorded: it is
// not validated on the way in (see readBody).
func appendBody(b []byte, m json.RawMessage) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// readBody reads one body written by appendBody; an empty one is nil. The
// result is a copy, and valid JSON (audit.ReadableBody): a recorded body
// that is not reads as a JSON string of its text.
func readBody(b []byte) (json.RawMessage, []byte, bool) {
	m, rest, ok := readLP(b)
	if !ok || len(m) == 0 {
		return nil, rest, ok
	}
	return bytes.Clone(audit.ReadableBody(m)), rest, true
}

// decodeHead decodes a stored head. JSON nulls in raw fields decode as
// nil, as they were before encoding.
func decodeHead(b []byte) (*audit.Entry, error) {
	e := new(audit.Entry)
	if err := json.Unmarshal(b, e); err != nil {
		return nil, fmt.Errorf("boltstore: decode audit entry: %w", err)
	}
	if d := e.Data; d != nil {
		nilIfNull(&d.RequestBody)
		nilIfNull(&d.ResponseBody)
		for i := range d.Attempts {
			nilIfNull(&d.Attempts[i].ResponseBody)
		}
		for i := range d.RequestRevisions {
			nilIfNull(&d.RequestRevisions[i].Body)
			nilIfNull(&d.RequestRevisions[i].Detail)
		}
	}
	return e, nil
}

// nilIfNull turns a raw JSON null into nil.
func nilIfNull(m *json.RawMessage) {
	if string(*m) == "null" {
		*m = nil
	}
}

// restoreRequestBody puts a stored request body back into e.
func restoreRequestBody(e *audit.Entry, b []byte) {
	if e.Data == nil {
		e.Data = &audit.Data{}
	}
	e.Data.RequestBody = bytes.Clone(audit.ReadableBody(b))
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
		if d.RequestBody, b, ok = readBody(b); !ok {
			return errCorrupt
		}
	}
	if d.ResponseBody, b, ok = readBody(b); !ok {
		return errCorrupt
	}
	n, b, ok := readUvarint(b)
	if !ok {
		return errCorrupt
	}
	for i := range n {
		var m json.RawMessage
		if m, b, ok = readBody(b); !ok {
			return errCorrupt
		}
		if i < uint64(len(d.Attempts)) {
			d.Attempts[i].ResponseBody = m
		}
	}
	if n, b, ok = readUvarint(b); !ok {
		return errCorrupt
	}
	for i := range n {
		var m json.RawMessage
		if m, b, ok = readBody(b); !ok {
			return errCorrupt
		}
		if i < uint64(len(d.RequestRevisions)) {
			d.RequestRevisions[i].Body = m
		}
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
