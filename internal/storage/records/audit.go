package records

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// The audit records are stored differently by each engine: bbolt keeps a
// binary head (its field walk and meta stay in boltstore), PostgreSQL a
// JSON head in a row whose filter fields are columns. What the engines
// share is here: the search text, the bodies list that follows the
// version byte of a bodies record, and the JSON form of a usage record.

// AppendSearchText appends e's search text to b: the lower-case text
// EntryQuery.Search looks in, one field per line (the id, then the
// request id, session id, method, path, user path, requested and
// resolved model, provider name and type, error type, auth key id,
// principal id, client IP, error code, error message and user agent;
// empty fields are left out). It is not cleaned: an engine that cannot
// store some bytes (PostgreSQL text refuses NUL and invalid UTF-8)
// replaces them itself.
func AppendSearchText(b []byte, e *audit.Entry) []byte {
	b, _ = e.ID.AppendText(b)
	for i := len(b) - audit.IDLen; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	b = append(b, '\n')
	for _, s := range [...]string{e.RequestID, e.SessionID, e.Method, e.Path, e.UserPath,
		e.RequestedModel, e.ResolvedModel, e.ProviderName, e.Provider, e.ErrorType, e.AuthKeyID,
		e.PrincipalID, e.ClientIP} {
		b = AppendLower(b, s)
	}
	if d := e.Data; d != nil {
		b = AppendLower(b, d.ErrorCode)
		b = AppendLower(b, d.ErrorMessage)
		b = AppendLower(b, d.UserAgent)
	}
	return b
}

// AppendLower appends s in lower case (as strings.ToLower) and a newline,
// nothing when s is empty.
func AppendLower(b []byte, s string) []byte {
	if s == "" {
		return b
	}
	start := len(b)
	b = append(b, s...)
	for i := start; i < len(b); i++ {
		c := b[i]
		if c >= utf8.RuneSelf {
			b = append(b[:start], strings.ToLower(s)...)
			break
		}
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return append(b, '\n')
}

// Bodies are stored apart from an entry's head, so that lists never read
// them, in a bodies record: a version byte of the engine's, then
// (depending on that version) the request body, then the bodies list:
// the response body, the attempts' response bodies and the revisions'
// bodies, each list a count followed by its elements. Every body is
// length-prefixed (uvarint length; empty: none) and copied as recorded,
// never re-encoded or validated on the way in; it reads back through
// audit.ReadableBody, so what is read is always JSON.

// BodiesSize returns the room the bodies record of d needs (a version
// byte, the request body when withRequest, and the bodies list), or 0
// when none of those bodies is set: such an entry has no bodies record.
func BodiesSize(d *audit.Data, withRequest bool) int {
	if d == nil {
		return 0
	}
	size, some := 1+2*binary.MaxVarintLen32, false
	count := func(m json.RawMessage) {
		size += len(m) + binary.MaxVarintLen32
		some = some || len(m) > 0
	}
	if withRequest {
		count(d.RequestBody)
	}
	count(d.ResponseBody)
	for _, a := range d.Attempts {
		count(a.ResponseBody)
	}
	for _, r := range d.RequestRevisions {
		count(r.Body)
	}
	if !some {
		return 0
	}
	return size
}

// AppendBody appends one length-prefixed body as it was recorded.
func AppendBody(b []byte, m json.RawMessage) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// ReadBody reads one body written by AppendBody and returns it with the
// rest of b; an empty one is nil. The body is a copy and valid JSON
// (see ReadableBody). ok is false when b is cut short.
func ReadBody(b []byte) (m json.RawMessage, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	m, rest = b[k:k+int(n)], b[k+int(n):]
	if len(m) == 0 {
		return nil, rest, true
	}
	return ReadableBody(m), rest, true
}

// ReadableBody returns a copy of the stored body m as JSON: a recorded
// body that is not JSON reads as a JSON string of its text (see
// audit.ReadableBody).
func ReadableBody(m []byte) json.RawMessage { return bytes.Clone(audit.ReadableBody(m)) }

// AppendBodyList appends the bodies list of a bodies record: the
// response body resp, then the response bodies of attempts and the
// bodies of revisions, each list its count followed by its bodies.
func AppendBodyList(b []byte, resp json.RawMessage, attempts []audit.Attempt, revisions []audit.Revision) []byte {
	b = AppendBody(b, resp)
	b = binary.AppendUvarint(b, uint64(len(attempts)))
	for _, a := range attempts {
		b = AppendBody(b, a.ResponseBody)
	}
	b = binary.AppendUvarint(b, uint64(len(revisions)))
	for _, r := range revisions {
		b = AppendBody(b, r.Body)
	}
	return b
}

// ReadBodyList reads a bodies list written by AppendBodyList into d: the
// response body, and the bodies of the attempts and revisions d already
// holds (from the head; a stored body without its attempt or revision is
// skipped). It reports false when b is cut short.
func ReadBodyList(d *audit.Data, b []byte) bool {
	var ok bool
	if d.ResponseBody, b, ok = ReadBody(b); !ok {
		return false
	}
	for _, set := range [...]func(i uint64, m json.RawMessage){
		func(i uint64, m json.RawMessage) {
			if i < uint64(len(d.Attempts)) {
				d.Attempts[i].ResponseBody = m
			}
		},
		func(i uint64, m json.RawMessage) {
			if i < uint64(len(d.RequestRevisions)) {
				d.RequestRevisions[i].Body = m
			}
		},
	} {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return false
		}
		b = b[k:]
		for i := range n {
			var m json.RawMessage
			if m, b, ok = ReadBody(b); !ok {
				return false
			}
			set(i, m)
		}
	}
	return true
}

// EncodeUsageJSON returns the JSON form of the usage record r: what
// PostgreSQL stores, and what bbolt stored before its binary format.
func EncodeUsageJSON(r *audit.UsageRecord) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode usage record: %w", err)
	}
	return b, nil
}

// DecodeUsageJSON reads a usage record stored by EncodeUsageJSON.
func DecodeUsageJSON(b []byte) (*audit.UsageRecord, error) {
	r := new(audit.UsageRecord)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("decode usage record: %w", err)
	}
	r.FillCostSource()
	return r, nil
}
