package responses

import (
	"testing"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// TestMessagesToResponsesStreamAbort: the chained stream skips an
// unreadable event and ends with response.failed when aborted, whatever
// the first converter's state.
func TestMessagesToResponsesStreamAbort(t *testing.T) {
	req := []byte(`{"model":"claude","input":"hi","stream":true}`)
	upstream := sse.Split(fixtures.Must(t, "anthropic", "messages_stream.txt"))
	s := NewMessagesToResponsesStream("alias", req)
	var out []byte
	for i, ev := range upstream[:len(upstream)-2] { // cut before message_delta
		if i == 2 {
			if b, err := s.Feed(sse.Event{Data: []byte("keep-alive")}); err == nil || len(b) != 0 {
				t.Fatalf("keep-alive: %q %v", b, err)
			}
		}
		b, err := s.Feed(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	out = append(out, s.Abort("upstream_read_failed", "reading the upstream stream failed")...)
	evs, final := checkStream(t, sse.Split(out))
	if evs[len(evs)-1].name != "response.failed" || final.Error == nil || final.Error.Message != "reading the upstream stream failed" ||
		final.outputText() == "" {
		t.Fatalf("%v %s", eventTypes(evs), evs[len(evs)-1].raw)
	}
	if b := s.Abort("x", "y"); len(b) != 0 {
		t.Fatalf("second Abort wrote %s", b)
	}
	if b := s.Finish(); len(b) != 0 {
		t.Fatalf("Finish after Abort wrote %s", b)
	}
}
