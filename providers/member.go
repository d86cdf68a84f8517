package providers

import (
	"bytes"
	"context"
	"net/http"
)

// MemberSender is implemented by providers that can send a JSON object
// with one member added without joining the two into a new buffer: a
// large request body that the audit also records is then neither copied
// nor changed.
type MemberSender interface {
	// DoWithMember is Do with member (`"name":value`) added as the last
	// member of the object body; body itself is left unchanged.
	DoWithMember(ctx context.Context, ep Endpoint, model string, body []byte, member string) (*http.Response, error)
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
var _ MemberSender = (*OpenAICompat)(nil)
