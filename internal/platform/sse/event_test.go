package sse

import (
	"bytes"
	"testing"
)

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

// eachDataReference is EachData as a copy of every event's data into one
// buffer reused from event to event: the reference for what fn is given.
func eachDataReference(stream []byte, fn func(data []byte)) {
	var data []byte
	emit := func() {
		if len(data) > 0 && string(data) != "[DONE]" {
			fn(data)
		}
		data = data[:0]
	}
	for len(stream) > 0 {
		line := stream
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, stream = stream[:i], stream[i+1:]
		} else {
			stream = nil
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

var eachDataSeeds = []string{
	"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
	"event: x\ndata: one\ndata: two\ndata: three\n\ndata:four\r\n\r\n",
	"data:\ndata: after-empty\n\ndata: \n\n: comment\ndata: last",
	"data: a\n\ndata: b\ndata: c\n\ndata: d\n\n",
	"", "\n\n\n", "data: [DONE]", "id: 1\nretry: 5\n\n",
}

// collect gives every event's data as EachData hands it over, kept as
// given (not copied) until the stream is done: what a caller that keeps
// strings of the parsed events sees.
func collect(each func([]byte, func([]byte)), stream []byte, keep bool) []string {
	var kept [][]byte
	var out []string
	each(stream, func(data []byte) {
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

func TestEachDataKeepsEveryEventIntact(t *testing.T) {
	for _, s := range eachDataSeeds {
		want := collect(eachDataReference, []byte(s), false)
		got := collect(EachData, []byte(s), true)
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

// FuzzEachData: EachData hands over what the copying reference does,
// and what it handed over earlier stays as it was.
func FuzzEachData(f *testing.F) {
	for _, s := range eachDataSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		orig := string(stream)
		want := collect(eachDataReference, stream, false)
		got := collect(EachData, stream, true)
		if string(stream) != orig {
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
