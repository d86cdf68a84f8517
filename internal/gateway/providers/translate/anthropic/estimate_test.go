package anthropic

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
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

func TestStreamInputEstimateBySize(t *testing.T) {
	small := []byte(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hello there"}]}`)
	want, err := EstimateMessagesInputTokens(small)
	if err != nil || want == 0 {
		t.Fatalf("estimate %d %v", want, err)
	}
	if got := streamInputEstimate(small); got != want {
		t.Fatalf("small request: %d, want the walk's %d", got, want)
	}
	big := []byte(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"` + strings.Repeat("a", walkEstimateMax) + `"}]}`)
	if got := streamInputEstimate(big); got != int64(len(big))/bytesPerToken {
		t.Fatalf("large request: %d, want %d", got, len(big)/bytesPerToken)
	}
	if got := streamInputEstimate(nil); got != 0 {
		t.Fatalf("no request: %d", got)
	}
}
