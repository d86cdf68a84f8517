package anthropic

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/providers/translate"
)

func TestUnescapedLenMatchesDecodedString(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d\n\t\r\b\f"`, `"caf\u00e9"`, `"\u20ac"`, `"\ud83d\ude00 smile"`,
		`"lone \ud83d here"`, `"bad pair \ud83d\u0041"`, `"end \ud83d"`, `"日本語\n"`, `"{\"temperature\":18}"`,
	} {
		if got, want := unescapedLen(lit), len(gjson.Parse(lit).Str); got != want {
			t.Errorf("%s: %d, want %d", lit, got, want)
		}
	}
}

func TestCompactLen(t *testing.T) {
	for _, raw := range []string{`{}`, `{ "a" : [1, 2] }`, "{\n\t\"s\": \"x \\\" y\"\r\n}", `"  spaced  "`} {
		if got, want := compactLen(raw), len(translate.CompactJSON(raw)); got != want {
			t.Errorf("%q: %d, want %d", raw, got, want)
		}
	}
}
