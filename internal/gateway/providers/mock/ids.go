package mock

import (
	"crypto/sha256"
	"encoding/hex"
)

// requestDigest is a hash of a request body; response ids derive from it so
// that identical requests get identical ids.
type requestDigest [sha256.Size]byte

// digest hashes a request body.
func digest(body []byte) requestDigest {
	return sha256.Sum256(body)
}

// completionID returns "chatcmpl-mock-<hex>".
func (d requestDigest) completionID() string {
	return "chatcmpl-mock-" + hex.EncodeToString(d[:12])
}

// toolCallID returns the id of the i-th (0-based) tool call of the
// answer: "call_<hex>", distinct from completionID's hex and from the
// other calls' ids.
func (d requestDigest) toolCallID(i int) string {
	if i == 0 {
		return "call_" + hex.EncodeToString(d[12:24])
	}
	h := sha256.Sum256(append(d[:], byte(i>>24), byte(i>>16), byte(i>>8), byte(i)))
	return "call_" + hex.EncodeToString(h[:12])
}
