package sse

import (
	"bytes"
	"testing"
)

// encodeEvents writes events back as server-sent events: an event: line
// when there is a name, one data: line per line of the data.
func encodeEvents(evs []Event) []byte {
	var out []byte
	for _, ev := range evs {
		if ev.Name != "" {
			out = append(append(append(out, "event: "...), ev.Name...), '\n')
		}
		for _, line := range bytes.Split(ev.Data, []byte("\n")) {
			out = append(append(append(out, "data: "...), line...), '\n')
		}
		out = append(out, '\n')
	}
	return out
}

// streamSeeds are streams as providers send them.
var streamSeeds = []string{
	"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hi\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		": keep-alive\n\n" +
		"data: {\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\n" +
		"data: [DONE]\n\n",
	"event: response.completed\ndata: {\"type\":\"response.completed\"}\n\n",
}

// FuzzSplit splits arbitrary bytes into events (Parse on each
// part): no panic; a name never spans lines; and, for input without CR (a
// lone CR is not a line break here), the events written back split into
// the same events.
func FuzzSplit(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
		f.Add(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte("\r\n")))
	}
	f.Add([]byte("event: a\ndata: 1\ndata: 2\n\n: comment\n\ndata:x\n\nevent:  b \ndata:\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs := Split(b)
		for _, ev := range evs {
			if bytes.IndexByte([]byte(ev.Name), '\n') >= 0 {
				t.Fatalf("name spans lines: %q", ev.Name)
			}
		}
		if bytes.IndexByte(b, '\r') >= 0 {
			return
		}
		again := Split(encodeEvents(evs))
		if len(again) != len(evs) {
			t.Fatalf("%d events, %d after writing them back", len(evs), len(again))
		}
		for i := range evs {
			if again[i].Name != evs[i].Name || !bytes.Equal(again[i].Data, evs[i].Data) {
				t.Fatalf("event %d: %q %q, written back %q %q", i, evs[i].Name, evs[i].Data, again[i].Name, again[i].Data)
			}
		}
	})
}
