package batches

import (
	"testing"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// errorBodyCases pin, byte for byte, the body a result line gets when the
// provider gave no answer for it: the gateway error shape with type
// provider_error and the provider's message. A plain-ASCII message is
// written as it is (HTML characters included); one that needs any
// escape is escaped as encoding/json does, HTML characters too.
var errorBodyCases = []struct{ msg, want string }{
	{"the provider returned no answer for this request", `{"error":{"type":"provider_error","message":"the provider returned no answer for this request"}}`},
	{"", `{"error":{"type":"provider_error","message":""}}`},
	{"Invalid request: model not found", `{"error":{"type":"provider_error","message":"Invalid request: model not found"}}`},
	{"quote \" and backslash \\", `{"error":{"type":"provider_error","message":"quote \" and backslash \\"}}`},
	{"tab\tnewline\ncarriage\r", `{"error":{"type":"provider_error","message":"tab\tnewline\ncarriage\r"}}`},
	{"a < b && c > d", `{"error":{"type":"provider_error","message":"a < b && c > d"}}`},
	{"<script>\"x\"</script>", `{"error":{"type":"provider_error","message":"\u003cscript\u003e\"x\"\u003c/script\u003e"}}`},
	{"café – naïve ✓ 日本語", `{"error":{"type":"provider_error","message":"café – naïve ✓ 日本語"}}`},
	{"line\u2028separator", `{"error":{"type":"provider_error","message":"line\u2028separator"}}`},
	{"bad \xff utf-8", `{"error":{"type":"provider_error","message":"bad \ufffd utf-8"}}`},
	{"nul \x00 byte", `{"error":{"type":"provider_error","message":"nul \u0000 byte"}}`},
}

// TestErrorBodyBytes: the error body of a result line
// (apierr.MessageBody) is the same bytes as the hand-written one it
// replaced, for every kind of message.
func TestErrorBodyBytes(t *testing.T) {
	for _, c := range errorBodyCases {
		if got := string(apierr.MessageBody(apierr.TypeProvider, c.msg)); got != c.want {
			t.Errorf("error body of %q:\n got %s\nwant %s", c.msg, got, c.want)
		}
	}
}

// TestRemoteResultErrorBody: a provider's result line without a response
// body becomes a result with the error body (the provider's message, or
// a fixed one when it gave none) and status 500 when it gave none.
func TestRemoteResultErrorBody(t *testing.T) {
	b := &Batch{ID: "batch_1", Provider: "oa", ProviderType: "openai"}
	index := map[string]int{"a": 0}
	for _, c := range []struct {
		line, want string
		status     int
	}{
		{`{"custom_id":"a","error":{"code":"x","message":"a < b \"quoted\""}}`,
			`{"error":{"type":"provider_error","message":"a \u003c b \"quoted\""}}`, 500},
		{`{"custom_id":"a","response":{"status_code":404},"error":{"message":"gone"}}`,
			`{"error":{"type":"provider_error","message":"gone"}}`, 404},
		{`{"custom_id":"a","error":null}`,
			`{"error":{"type":"provider_error","message":"the provider returned no answer for this request"}}`, 500},
	} {
		r, _, err := remoteResult(b, []byte(c.line), index)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if string(r.Body) != c.want || r.StatusCode != c.status {
			t.Errorf("%s:\n got %d %s\nwant %d %s", c.line, r.StatusCode, r.Body, c.status, c.want)
		}
	}
}
