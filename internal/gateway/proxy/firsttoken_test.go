package proxy

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

func TestHasContent(t *testing.T) {
	for _, c := range []struct {
		in   ingress
		ev   string
		want bool
	}{
		{ingressChat, `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}` + "\n\n", false},
		{ingressChat, `data: {"choices":[{"delta":{"content":"Hi"}}]}` + "\n\n", true},
		{ingressChat, `data: {"choices":[{"delta":{"content": "Hi"}}]}` + "\n\n", true},
		{ingressChat, `data: {"choices":[{"delta":{"content":null,"tool_calls":[{"index":0}]}}]}` + "\n\n", true},
		{ingressChat, `data: {"choices":[{"delta":{"reasoning_content":"so"}}]}` + "\n\n", true},
		{ingressChat, "data: [DONE]\n\n", false},
		{ingressMessages, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", false},
		{ingressMessages, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n", true},
		{ingressResponses, "event: response.created\ndata: {}\n\n", false},
		{ingressResponses, "event: response.output_text.delta\ndata: {\"delta\":\"Hi\"}\n\n", true},
		{ingress{}, "data: anything\n\n", true},
		{ingress{}, ": keep-alive\n\n", false},
	} {
		if got := hasContent(c.in, []byte(c.ev)); got != c.want {
			t.Errorf("hasContent(%s, %q) = %v, want %v", c.in.name, c.ev, got, c.want)
		}
	}
}

// TestEventWriterMarksFirstToken: the write that sends the first event
// with content marks the request's first token, once.
func TestEventWriterMarksFirstToken(t *testing.T) {
	info := reqinfo.New()
	ew := startEventStream(httptest.NewRecorder(), 200, sse.NewReader(strings.NewReader(""), 1<<20), info)
	defer ew.close()
	ew.send(ingressChat, []byte(`data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`+"\n\n"))
	if _, ok := info.FirstToken(); ok {
		t.Fatal("a role-only chunk marked the first token")
	}
	before := time.Now()
	ew.send(ingressChat, []byte(`data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n"))
	first, ok := info.FirstToken()
	if !ok || first.Before(before) {
		t.Fatalf("first token %v %v, want at or after %v", first, ok, before)
	}
	ew.send(ingressChat, []byte(`data: {"choices":[{"delta":{"content":" there"}}]}`+"\n\n"))
	if again, _ := info.FirstToken(); !again.Equal(first) {
		t.Errorf("a later chunk moved the first token from %v to %v", first, again)
	}
}
