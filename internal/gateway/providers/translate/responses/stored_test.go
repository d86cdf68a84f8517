package responses

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/platform/sse"
)

// A stored response takes the gateway's id (its items share its random
// part), says store true and names the response it continues; the same
// request unstored says store false and previous_response_id null.
func TestStoredResponseEchoes(t *testing.T) {
	chat := []byte(`{"id":"chatcmpl-up","choices":[{"message":{"content":"x"},"finish_reason":"stop"}]}`)
	st := &Stored{ID: "resp_0123abcd", PreviousID: "resp_prev"}
	out, _, err := ChatToResponsesResponseStored(chat, []byte(`{"model":"m","input":"hi"}`), st)
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if r.Get("id").Str != st.ID || !r.Get("store").Bool() || r.Get("previous_response_id").Str != "resp_prev" ||
		r.Get("output.0.id").Str != "msg_0123abcd_0" {
		t.Fatalf("%s", out)
	}
	out, _, _ = ChatToResponsesResponse(chat, []byte(`{"model":"m","input":"hi"}`))
	r = gjson.ParseBytes(out)
	if r.Get("id").Str != "resp_up" || r.Get("store").Type != gjson.False || r.Get("previous_response_id").Type != gjson.Null {
		t.Fatalf("%s", out)
	}

	s := NewChatToResponsesStreamStored([]byte(`{"model":"m","input":"hi","stream":true}`), &Stored{ID: "resp_77"})
	var all []byte
	for _, c := range chatChunks(`{"id":"chatcmpl-up","choices":[{"delta":{"content":"x"}}]}`,
		`{"id":"chatcmpl-up","choices":[{"delta":{},"finish_reason":"stop"}]}`) {
		b, err := s.Feed(c)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	b, _ := s.Feed(sse.Event{Data: []byte("[DONE]")})
	all = append(all, b...)
	all = append(all, s.Finish()...)
	if !strings.Contains(string(all), `"id":"resp_77"`) || strings.Contains(string(all), "resp_up") ||
		!strings.Contains(string(all), `"store":true`) {
		t.Fatalf("%s", all)
	}
}
