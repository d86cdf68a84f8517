package translate

import (
	"testing"

	"github.com/modelgate/modelgate/internal/platform/sse"
)

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
	var got []sse.Event
	e.Events(func(ev sse.Event) bool {
		got = append(got, sse.Event{Name: ev.Name, Data: append([]byte(nil), ev.Data...)})
		return true
	})
	want := sse.Split(e.Buf)
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("got %d events, text has %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Name != want[i].Name || string(got[i].Data) != string(want[i].Data) {
			t.Errorf("event %d = %q %s, the text says %q %s", i, got[i].Name, got[i].Data, want[i].Name, want[i].Data)
		}
	}
	e.Reset()
	e.Events(func(sse.Event) bool { t.Fatal("events survive Reset"); return false })
}
