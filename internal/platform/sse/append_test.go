package sse

import "testing"

func TestAppend(t *testing.T) {
	got := string(Append(nil, 42, "audit", []byte("a\nb\r\nc\rd")))
	want := "id: 42\nevent: audit\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := string(Append([]byte("x"), 1, "reset", nil)); got != "xid: 1\nevent: reset\ndata: \n\n" {
		t.Fatalf("empty data: %q", got)
	}
}

func TestAppendStartEnd(t *testing.T) {
	b := AppendStart([]byte("x"), "message_stop")
	b = append(b, `{"type":"message_stop"}`...)
	b = AppendEnd(b)
	b = AppendEnd(append(AppendStart(b, ""), "[DONE]"...))
	if got := string(b); got != "xevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\ndata: [DONE]\n\n" {
		t.Fatalf("%q", got)
	}
}
