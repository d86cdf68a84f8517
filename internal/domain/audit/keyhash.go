package audit

import (
	"crypto/sha256"
	"encoding/hex"
)

// APIKeyHash returns the first 16 hex characters of the SHA-256 of a
// caller's credential: enough to tell keys apart in the audit log, never
// enough to recover one. It returns "" for an empty credential.
func APIKeyHash(credential string) string {
	if credential == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(credential))
	return hex.EncodeToString(sum[:8])
}
