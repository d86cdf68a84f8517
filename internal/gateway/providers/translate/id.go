package translate

import (
	"crypto/rand"
	"encoding/hex"
)

// RandomHex returns n random bytes (at most 32) as lowercase hex digits.
func RandomHex(n int) string {
	var b [32]byte
	n = min(n, len(b))
	_, _ = rand.Read(b[:n])
	return hex.EncodeToString(b[:n])
}

// NewID returns prefix followed by 24 random hex digits, for upstream
// objects that came without an id.
func NewID(prefix string) string {
	return prefix + RandomHex(12)
}
