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

// toolCallID returns "call_<hex>", distinct from completionID's hex.
func (d requestDigest) toolCallID() string {
	return "call_" + hex.EncodeToString(d[12:24])
}
