package providers

import (
	"bytes"
	"context"
	"net/http"
)

// PartsSender is implemented by providers that can send a JSON body given
// as consecutive parts without joining them into a new buffer: a body with
// a member added, or a translated body whose long strings still lie in the
// client's body, is then sent without a copy of what the audit records.
type PartsSender interface {
	// DoParts is Do with the body that parts make up in order. The parts
	// are only read, and may be read again when the request is replayed.
	DoParts(ctx context.Context, ep Endpoint, model string, parts [][]byte) (*http.Response, error)
}

// MemberSplit returns where a member added to the JSON object obj goes:
// the offset of its closing brace, and the separator it needs there (a
// comma, unless the object is empty). obj must be an object whose last
// brace closes it.
func MemberSplit(obj []byte) (end int, sep string) {
	end = bytes.LastIndexByte(obj, '}')
	if end > 0 && bytes.IndexByte(obj[:end], ':') >= 0 { // not an empty object
		sep = ","
	}
	return end, sep
}

// Interface guard.
var _ PartsSender = (*OpenAICompat)(nil)
