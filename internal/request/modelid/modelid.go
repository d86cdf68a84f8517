// Package modelid bounds the model ids the gateway reads from requests.
// A model id becomes part of storage keys (the audit index, the usage
// aggregates) and of log lines, so it is bounded where it enters: the
// model endpoints refuse a longer one (Check), and what is recorded of a
// model the gateway relays without acting on it (passthrough) is cut to
// the bound and marked (Recorded).
package modelid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// MaxLen is the longest model id the gateway takes, in bytes. Real model
// ids are far shorter (the longest listed by providers are under 100
// bytes, a fine-tuned id with its organisation and suffix under 200).
const MaxLen = 256

// Check returns an error saying why model is refused, or nil: only a
// model longer than MaxLen bytes is.
func Check(model string) error {
	if len(model) > MaxLen {
		return fmt.Errorf("model is %d bytes long; the longest accepted is %d bytes", len(model), MaxLen)
	}
	return nil
}

// Marker separates the kept prefix of an over-long model id from the
// digest that Recorded appends.
const Marker = "…#"

// digestLen is how many hex digits of the SHA-256 Recorded keeps.
const digestLen = 16

// Recorded returns model as it is recorded: unchanged up to MaxLen bytes;
// a longer one is cut to its first bytes (at a character boundary),
// followed by Marker and the first 16 hex digits of the SHA-256 of the
// whole id, MaxLen bytes at most in all. The result is deterministic, so
// records of one over-long model still group together, and two long ids
// with a common prefix stay apart.
func Recorded(model string) string {
	if len(model) <= MaxLen {
		return model
	}
	sum := sha256.Sum256([]byte(model))
	keep := MaxLen - len(Marker) - digestLen
	for keep > 0 && !utf8.RuneStart(model[keep]) {
		keep--
	}
	return model[:keep] + Marker + hex.EncodeToString(sum[:])[:digestLen]
}
