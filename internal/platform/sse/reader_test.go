package sse

import (
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
