package anthropic

import (
	"regexp"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

func TestWriteMessageID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"id":"chatcmpl-abc123"}`, `"msg_abc123"`},
		{`{"id":"msg_01XF"}`, `"msg_01XF"`},
		{`{"id":"704f97d8-0ee9"}`, `"msg_704f97d8-0ee9"`},
		{`{"id":"gen-\"q\"\u00e9"}`, `"msg_gen-\"q\"é"`},
	} {
		var w translate.Writer
		writeMessageID(&w, gjson.Get(c.in, "id"))
		if got := string(w.Buf); got != `"id":`+c.want {
			t.Errorf("%s: got %s, want \"id\":%s", c.in, got, c.want)
		}
	}
	made := regexp.MustCompile(`^"id":"msg_[0-9a-f]{24}"$`)
	for _, in := range []string{`{}`, `{"id":""}`, `{"id":7}`} {
		var w translate.Writer
		writeMessageID(&w, gjson.Get(in, "id"))
		if !made.Match(w.Buf) {
			t.Errorf("%s: got %s, want a made-up msg_ id", in, w.Buf)
		}
	}
}

func TestTranslatedMessagesCarryMessageIDs(t *testing.T) {
	out, _, err := ChatToMessagesResponse([]byte(`{"id":"chatcmpl-7","model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if id := gjson.GetBytes(out, "id").Str; id != "msg_7" {
		t.Fatalf("response id %q, want msg_7", id)
	}
	s := NewChatToMessagesStream("", nil)
	msg, _ := anthReadMessagesStream(t, anthRunStream(t, s.Feed, s.Finish, []sse.Event{
		anthChunk(`"delta":{"content":"hi"},"finish_reason":"stop"`, ""), {Data: []byte("[DONE]")}}))
	if msg.ID != "msg_9" {
		t.Fatalf("stream id %q, want msg_9", msg.ID)
	}
}
