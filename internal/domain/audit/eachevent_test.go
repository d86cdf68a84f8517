package audit

import (
	"bytes"
	"testing"
)

// eachEventReference is eachEvent as a copy of every event's data into one
// buffer reused from event to event: the reference for what fn is given.
func eachEventReference(sse []byte, fn func(data []byte)) {
	var data []byte
	emit := func() {
		if len(data) > 0 && string(data) != "[DONE]" {
			fn(data)
		}
		data = data[:0]
	}
	for len(sse) > 0 {
		line := sse
		if i := bytes.IndexByte(sse, '\n'); i >= 0 {
			line, sse = sse[:i], sse[i+1:]
		} else {
			sse = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			emit()
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	emit()
}

var eachEventSeeds = []string{
	"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
	"event: x\ndata: one\ndata: two\ndata: three\n\ndata:four\r\n\r\n",
	"data:\ndata: after-empty\n\ndata: \n\n: comment\ndata: last",
	"data: a\n\ndata: b\ndata: c\n\ndata: d\n\n",
	"", "\n\n\n", "data: [DONE]", "id: 1\nretry: 5\n\n",
}

// collect gives every event's data as eachEvent hands it over, kept as
// given (not copied) until the stream is done: what a caller that keeps
// strings of the parsed events sees.
func collect(each func([]byte, func([]byte)), sse []byte, keep bool) []string {
	var kept [][]byte
	var out []string
	each(sse, func(data []byte) {
		if keep {
			kept = append(kept, data)
		} else {
			out = append(out, string(data))
		}
	})
	for _, d := range kept {
		out = append(out, string(d))
	}
	return out
}

func TestEachEventKeepsEveryEventIntact(t *testing.T) {
	for _, s := range eachEventSeeds {
		want := collect(eachEventReference, []byte(s), false)
		got := collect(eachEvent, []byte(s), true)
		if len(got) != len(want) {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: got %q, want %q", s, got, want)
			}
		}
	}
}

// FuzzEachEvent: eachEvent hands over what the copying reference does,
// and what it handed over earlier stays as it was.
func FuzzEachEvent(f *testing.F) {
	for _, s := range eachEventSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, sse []byte) {
		orig := string(sse)
		want := collect(eachEventReference, sse, false)
		got := collect(eachEvent, sse, true)
		if string(sse) != orig {
			t.Fatal("the stream was changed")
		}
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})
}
