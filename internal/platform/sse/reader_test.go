package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderSplitsAsSent(t *testing.T) {
	in := "data: a\n\nevent: x\ndata: b\r\n\r\n\ndata: " + strings.Repeat("z", 40000) + "\n\ndata: tail-without-blank"
	r := NewReader(strings.NewReader(in), 0)
	defer r.Release()
	var got []string
	for {
		ev, err := r.Next()
		if len(ev) > 0 {
			got = append(got, string(ev))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(got, "") != in {
		t.Fatal("events do not reassemble to the input")
	}
	want := []string{"data: a\n\n", "event: x\ndata: b\r\n\r\n", "\n"}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("event %d = %q, want %q", i, got[i], w)
		}
	}
	if len(got) != 5 || !strings.HasPrefix(got[3], "data: zzz") || got[4] != "data: tail-without-blank" {
		t.Fatalf("got %d events", len(got))
	}
}

func TestReaderCap(t *testing.T) {
	in := "data: " + strings.Repeat("z", 100) + "\n\n"
	r := NewReader(strings.NewReader(in+in), len(in))
	ev, err := r.Next()
	if err != nil || string(ev) != in {
		t.Fatalf("an event of the cap's size: %q, %v", ev, err)
	}
	r.Release()
	r = NewReader(strings.NewReader(in), len(in)-1)
	defer r.Release()
	if ev, err := r.Next(); !errors.Is(err, ErrEventTooLarge) || ev != nil {
		t.Fatalf("an event beyond the cap: %q, %v", ev, err)
	}
	r2 := NewReader(strings.NewReader(strings.Repeat("z", 100<<10)), 0)
	defer r2.Release()
	if ev, err := r2.Next(); err != io.EOF || len(ev) != 100<<10 {
		t.Fatalf("no cap: %d bytes, %v", len(ev), err)
	}
}

func TestReaderPending(t *testing.T) {
	for _, tc := range []struct {
		buffered string
		want     bool
	}{
		{"", false},
		{"data: a", false},
		{"data: a\n", false},
		{"data: a\n\n", true},
		{"data: a\r\n\r\n", true},
		{"\n", true},
		{"\r\n", true},
		{"event: x\ndata: a\n", false},
		{"event: x\ndata: a\n\ndata: b", true},
	} {
		e := NewReader(strings.NewReader(tc.buffered), 0)
		_, _ = e.r.Peek(len(tc.buffered)) // fill the buffer without consuming
		if got := e.Pending(); got != tc.want {
			t.Errorf("Pending with %q buffered = %v, want %v", tc.buffered, got, tc.want)
		}
		// Whenever Pending says so, Next must return an event without
		// reading further (the source is exhausted anyway, so check that
		// the event is a terminated one).
		if tc.want {
			ev, err := e.Next()
			if err != nil || !strings.HasSuffix(string(ev), "\n") {
				t.Errorf("%q: Next = %q, %v after Pending", tc.buffered, ev, err)
			}
		}
		e.Release()
	}
}

// TestReaderBuffered: what Next has not returned is all that Buffered
// shows, so the events read and the buffered rest reassemble the stream.
func TestReaderBuffered(t *testing.T) {
	in := "data: a\n\ndata: b\n\ndata: c"
	r := NewReader(strings.NewReader(in), 0)
	defer r.Release()
	ev, err := r.Next()
	if err != nil || string(ev) != "data: a\n\n" {
		t.Fatalf("Next = %q, %v", ev, err)
	}
	if got := string(ev) + string(r.Buffered()); got != in {
		t.Fatalf("event and buffered rest = %q, want %q", got, in)
	}
	if ev, err := r.Next(); err != nil || string(ev) != "data: b\n\n" {
		t.Fatalf("Buffered consumed something: Next = %q, %v", ev, err)
	}
}

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
