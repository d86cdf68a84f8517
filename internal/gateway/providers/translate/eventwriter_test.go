package translate

import "testing"

func TestEventWriterFraming(t *testing.T) {
	var e EventWriter
	e.Buf = append(e.Buf, 'x')
	e.Begin("message_stop")
	e.Obj()
	e.KeyStr("type", "message_stop")
	e.EndObj()
	e.End()
	if got := string(e.Buf); got != "xevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" {
		t.Fatalf("%q", got)
	}
	e.Reset()
	e.Done()
	if got := string(e.Buf); got != "data: [DONE]\n\n" {
		t.Fatalf("%q", got)
	}
}

func TestEventWriterKeepsEvents(t *testing.T) {
	var e EventWriter
	e.Keep()
	e.Begin("a")
	e.Obj()
	e.KeyInt("n", 1)
	e.EndObj()
	e.End()
	e.Done()
	var got []Event
	e.Events(func(ev Event) bool {
		got = append(got, Event{Name: ev.Name, Data: append([]byte(nil), ev.Data...)})
		return true
	})
	want := SplitEvents(e.Buf)
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("got %d events, text has %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Name != want[i].Name || string(got[i].Data) != string(want[i].Data) {
			t.Errorf("event %d = %q %s, the text says %q %s", i, got[i].Name, got[i].Data, want[i].Name, want[i].Data)
		}
	}
	e.Reset()
	e.Events(func(Event) bool { t.Fatal("events survive Reset"); return false })
}

func TestParseEvent(t *testing.T) {
	ev, ok := ParseEvent([]byte("event: ping\r\ndata: {\"a\":1}\r\ndata:two\n\n"))
	if !ok || ev.Name != "ping" || string(ev.Data) != "{\"a\":1}\ntwo" {
		t.Fatalf("%v %q %q", ok, ev.Name, ev.Data)
	}
	if _, ok := ParseEvent([]byte(": comment\n\n")); ok {
		t.Fatal("a comment has no data")
	}
	if evs := SplitEvents([]byte("data: 1\n\n: c\n\nevent: e\ndata: 2\n\n")); len(evs) != 2 || evs[1].Name != "e" {
		t.Fatalf("%+v", evs)
	}
}
