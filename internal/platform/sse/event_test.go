package sse

import "testing"

func TestParse(t *testing.T) {
	ev, ok := Parse([]byte("event: ping\r\ndata: {\"a\":1}\r\ndata:two\n\n"))
	if !ok || ev.Name != "ping" || string(ev.Data) != "{\"a\":1}\ntwo" {
		t.Fatalf("%v %q %q", ok, ev.Name, ev.Data)
	}
	if _, ok := Parse([]byte(": comment\n\n")); ok {
		t.Fatal("a comment has no data")
	}
	if evs := Split([]byte("data: 1\n\n: c\n\nevent: e\ndata: 2\n\n")); len(evs) != 2 || evs[1].Name != "e" {
		t.Fatalf("%+v", evs)
	}
}
