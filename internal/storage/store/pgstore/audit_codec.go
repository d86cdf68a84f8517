package pgstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/records"
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

// searchText is the text EntryQuery.Search looks in
// (records.AppendSearchText), cleaned for a text column.
func searchText(e *audit.Entry) string {
	var buf [512]byte
	return cleanText(string(records.AppendSearchText(buf[:0], e)))
}

// Bodies are stored apart from the rest of the entry, so that lists never
// read them, in one binary record sealed by records.Seal (compressed with
// S2 when that pays, as the bbolt engine stores its body chunks, so that
// the database receives, writes and keeps a fraction of the bytes):
// bodiesWithRequest, then the request body (records.AppendBody), then the
// bodies list of records.AppendBodyList (the response body, the attempts'
// and the revisions' bodies). Entries written before kept the request body
// alone in the request_body column, as recorded, and the others after
// bodiesVersion, uncompressed; both read back alike. Bodies are stored as
// recorded, not validated; they read back through audit.ReadableBody, so
// what is read is always JSON.
const (
	bodiesVersion     = 1
	bodiesWithRequest = 2
)

// bodyScratch holds encodeEntry's buffers for reuse across calls.
type bodyScratch struct{ raw, sealed []byte }

// encodeEntry returns the stored head (the entry without bodies, JSON) and
// the record of its bodies (nil when there are none), a slice of its own.
// sc, when not nil, keeps the buffers for the next call.
func encodeEntry(e *audit.Entry, sc *bodyScratch) (head, bodies []byte, err error) {
	h := *e
	h.Data = e.Data.WithoutBodies()
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, store.Unstorable("encoding", fmt.Errorf("postgres: encode audit entry: %w", err))
	}
	if records.BodiesSize(e.Data, true) == 0 {
		return head, nil, nil
	}
	if sc == nil {
		sc = &bodyScratch{}
	}
	d := e.Data
	raw := append(sc.raw[:0], bodiesWithRequest)
	raw = records.AppendBody(raw, d.RequestBody)
	sc.raw = records.AppendBodyList(raw, d.ResponseBody, d.Attempts, d.RequestRevisions)
	bodies, sc.sealed = records.Seal(sc.sealed, sc.raw)
	return head, bodies, nil
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
		d.RequestBody = records.ReadableBody(reqBody)
	}
	if len(b) == 0 {
		return nil
	}
	b, err := records.Open(b)
	if err != nil || len(b) == 0 {
		return errCorrupt
	}
	ok := false
	switch b[0] {
	case bodiesVersion:
		ok = records.ReadBodyList(d, b[1:])
	case bodiesWithRequest:
		var rest []byte
		if d.RequestBody, rest, ok = records.ReadBody(b[1:]); ok {
			ok = records.ReadBodyList(d, rest)
		}
	}
	if !ok {
		return errCorrupt
	}
	return nil
}
