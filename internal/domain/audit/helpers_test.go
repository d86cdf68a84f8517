package audit

import (
	"bytes"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// tokensFor returns a usage of n input tokens.
func tokensFor(n int64) catalog.Usage {
	return catalog.Usage{InputTokens: n, TotalTokens: n}
}

// contains reports whether b contains s.
func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
