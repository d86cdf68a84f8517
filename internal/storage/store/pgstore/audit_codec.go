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
// read them: the request body alone, as recorded, and the others in one
// binary record: bodiesVersion, then the bodies list of
// records.AppendBodyList (the response body, the attempts' and the
// revisions' bodies). Bodies are stored as recorded, not validated; they
// read back through audit.ReadableBody, so what is read is always JSON.
const bodiesVersion = 1

// encodeEntry returns the stored head (the entry without bodies, JSON) and
// the record of its bodies but the request body (nil when there are none).
func encodeEntry(e *audit.Entry) (head, bodies []byte, err error) {
	h := *e
	h.Data = e.Data.WithoutBodies()
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, store.Unstorable("encoding", fmt.Errorf("postgres: encode audit entry: %w", err))
	}
	size := records.BodiesSize(e.Data, false)
	if size == 0 {
		return head, nil, nil
	}
	d := e.Data
	b := append(make([]byte, 0, size), bodiesVersion)
	return head, records.AppendBodyList(b, d.ResponseBody, d.Attempts, d.RequestRevisions), nil
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
	if b[0] != bodiesVersion || !records.ReadBodyList(d, b[1:]) {
		return errCorrupt
	}
	return nil
}
