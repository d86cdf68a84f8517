package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// MaxModelIDLen is the longest model id the gateway takes, in bytes. Real
// model ids are far shorter (the longest listed by providers are under
// 100 bytes, a fine-tuned id with its organisation and suffix under 200).
// A model id the gateway reads from a request becomes part of storage
// keys (the audit index, the usage aggregates) and of log lines, so it is
// bounded where it enters: the model endpoints refuse a longer one
// (CheckModelID), and what is recorded of a model the gateway relays
// without acting on it (passthrough) is cut to the bound and marked
// (RecordedModelID).
const MaxModelIDLen = 256

// CheckModelID returns an error saying why model is refused, or nil: only
// a model longer than MaxModelIDLen bytes is.
func CheckModelID(model string) error {
	if len(model) > MaxModelIDLen {
		return fmt.Errorf("model is %d bytes long; the longest accepted is %d bytes", len(model), MaxModelIDLen)
	}
	return nil
}

// ModelIDMarker separates the kept prefix of an over-long model id from
// the digest that RecordedModelID appends.
const ModelIDMarker = "…#"

// modelIDDigestLen is how many hex digits of the SHA-256 RecordedModelID
// keeps.
const modelIDDigestLen = 16

// RecordedModelID returns model as it is recorded: unchanged up to
// MaxModelIDLen bytes; a longer one is cut to its first bytes (at a
// character boundary), followed by ModelIDMarker and the first 16 hex
// digits of the SHA-256 of the whole id, MaxModelIDLen bytes at most in
// all. The result is deterministic, so records of one over-long model
// still group together, and two long ids with a common prefix stay apart.
func RecordedModelID(model string) string {
	if len(model) <= MaxModelIDLen {
		return model
	}
	sum := sha256.Sum256([]byte(model))
	keep := MaxModelIDLen - len(ModelIDMarker) - modelIDDigestLen
	for keep > 0 && !utf8.RuneStart(model[keep]) {
		keep--
	}
	return model[:keep] + ModelIDMarker + hex.EncodeToString(sum[:])[:modelIDDigestLen]
}
