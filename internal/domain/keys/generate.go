package keys

import (
	"crypto/rand"
	"strings"
)

// Managed key format: KeyPrefix followed by KeyRandomLen base62 characters
// drawn from crypto/rand.
const (
	// KeyPrefix starts every managed key.
	KeyPrefix = "sk_mg_"
	// KeyRandomLen is the number of random base62 characters after it.
	KeyRandomLen = 32
	// KeyLen is the length of a managed key.
	KeyLen = len(KeyPrefix) + KeyRandomLen
	// ShownPrefixLen is how much of a key lists show: KeyPrefix and six
	// random characters, enough to tell keys apart, far too little to guess
	// the rest.
	ShownPrefixLen = len(KeyPrefix) + 6
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n characters drawn uniformly from the base62
// alphabet. Bytes at or above 248 (the largest multiple of 62 that fits in
// a byte) are discarded, so there is no modulo bias.
func randomBase62(n int) (string, error) {
	var sb strings.Builder
	sb.Grow(n)
	buf := make([]byte, n+n/4+8)
	for sb.Len() < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if b >= 248 {
				continue
			}
			sb.WriteByte(base62[b%62])
			if sb.Len() == n {
				break
			}
		}
	}
	return sb.String(), nil
}

// newSecret returns a fresh managed key.
func newSecret() (string, error) {
	r, err := randomBase62(KeyRandomLen)
	if err != nil {
		return "", err
	}
	return KeyPrefix + r, nil
}

// newID returns a fresh key id. Ids are public: they name a key in the
// admin API and in audit records, and reveal nothing about the secret.
func newID() (string, error) {
	r, err := randomBase62(16)
	if err != nil {
		return "", err
	}
	return "key_" + r, nil
}

// LooksManaged reports whether credential has the shape of a managed key.
// It says nothing about whether the key exists.
func LooksManaged(credential string) bool {
	if len(credential) != KeyLen || !strings.HasPrefix(credential, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(credential); i++ {
		if strings.IndexByte(base62, credential[i]) < 0 {
			return false
		}
	}
	return true
}
