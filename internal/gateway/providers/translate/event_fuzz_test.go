package translate

import (
	"bytes"
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
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

// FuzzSplitEvents splits arbitrary bytes into events (ParseEvent on each
// part): no panic; a name never spans lines; and, for input without CR (a
// lone CR is not a line break here), the events written back split into
// the same events.
func FuzzSplitEvents(f *testing.F) {
	for _, fam := range fixtures.Families() {
		for _, name := range fixtures.Glob(fam, "*stream.txt") {
			s := fixtures.Must(f, fam, name)
			f.Add(s)
			f.Add(bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n")))
		}
	}
	f.Add([]byte("event: a\ndata: 1\ndata: 2\n\n: comment\n\ndata:x\n\nevent:  b \ndata:\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs := SplitEvents(b)
		for _, ev := range evs {
			if bytes.IndexByte([]byte(ev.Name), '\n') >= 0 {
				t.Fatalf("name spans lines: %q", ev.Name)
			}
		}
		if bytes.IndexByte(b, '\r') >= 0 {
			return
		}
		again := SplitEvents(encodeEvents(evs))
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
