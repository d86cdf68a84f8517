package pgstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// errCorrupt reports a stored value this code cannot decode.
var errCorrupt = errors.New("postgres: corrupt audit value")

// cleanText returns s as PostgreSQL text accepts it: invalid UTF-8 and
// NUL bytes, which a text column refuses, become U+FFFD. Filter values
// go through it too, so a filter matches the value as it was stored.
func cleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && isValidUTF8(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// isValidUTF8 reports whether s is valid UTF-8, quickly for ASCII.
func isValidUTF8(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.ToValidUTF8(s, "\uFFFD") == s
		}
	}
	return true
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
	return cleanText(sb.String())
}

// Bodies are stored apart from the rest of the entry, so that lists never
// read them: the request body alone, as recorded, and the others in one
// binary record: bodiesVersion, the response body, then the attempts' and
// the revisions' bodies, each list a count followed by its elements, every
// body length-prefixed (empty: none). Bodies are stored as recorded, not
// validated; they read back through audit.ReadableBody, so what is read is
// always JSON.
const bodiesVersion = 1

// encodeEntry returns the stored head (the entry without bodies, JSON) and
// the record of its bodies but the request body (nil when there are none).
func encodeEntry(e *audit.Entry) (head, bodies []byte, err error) {
	h := *e
	h.Data = e.Data.WithoutBodies()
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, store.Unstorable("encoding", fmt.Errorf("postgres: encode audit entry: %w", err))
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

// appendBody appends one length-prefixed body.
func appendBody(b []byte, m json.RawMessage) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// readBody reads one body written by appendBody; an empty one is nil. The
// result is a copy and valid JSON.
func readBody(b []byte) (json.RawMessage, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	m, rest := b[k:k+int(n)], b[k+int(n):]
	if len(m) == 0 {
		return nil, rest, true
	}
	return bytes.Clone(audit.ReadableBody(m)), rest, true
}

// decodeHead decodes a stored head (see audit.DecodeEntry).
func decodeHead(b []byte) (*audit.Entry, error) {
	e, err := audit.DecodeEntry(b)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return e, nil
}

// restoreBodies puts a stored request body and bodies record back into e.
func restoreBodies(e *audit.Entry, reqBody, b []byte) error {
	if len(reqBody) == 0 && len(b) == 0 {
		return nil
	}
	if e.Data == nil {
		e.Data = &audit.Data{}
	}
	d := e.Data
	if len(reqBody) > 0 {
		d.RequestBody = bytes.Clone(audit.ReadableBody(reqBody))
	}
	if len(b) == 0 {
		return nil
	}
	if b[0] != bodiesVersion {
		return errCorrupt
	}
	b = b[1:]
	var ok bool
	if d.ResponseBody, b, ok = readBody(b); !ok {
		return errCorrupt
	}
	for _, list := range [...]func(i uint64, m json.RawMessage){
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
			return errCorrupt
		}
		b = b[k:]
		for i := range n {
			var m json.RawMessage
			if m, b, ok = readBody(b); !ok {
				return errCorrupt
			}
			list(i, m)
		}
	}
	return nil
}
