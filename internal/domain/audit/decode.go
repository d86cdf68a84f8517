package audit

import (
	"encoding/json"
	"fmt"
)

// DecodeEntry decodes an entry from its JSON form, as storage keeps an
// entry's head. A JSON null in a raw body field (request and response
// bodies, attempt bodies, revision bodies and details) decodes as nil, as
// it was before encoding, rather than as the four bytes "null".
func DecodeEntry(b []byte) (*Entry, error) {
	e := new(Entry)
	if err := json.Unmarshal(b, e); err != nil {
		return nil, fmt.Errorf("decode audit entry: %w", err)
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
