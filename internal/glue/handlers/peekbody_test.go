package handlers

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// chunky yields its text a few bytes per Read, then err.
type chunky struct {
	text string
	err  error
}

func (c *chunky) Read(p []byte) (int, error) {
	if c.text == "" {
		return 0, c.err
	}
	n := copy(p[:min(len(p), 7)], c.text)
	c.text = c.text[n:]
	return n, nil
}

func (c *chunky) Close() error { return nil }

func TestPeekBody(t *testing.T) {
	body := strings.Repeat("0123456789", 1000) // 10,000 bytes
	cases := []struct {
		name      string
		declared  int64
		max       int64
		err       error
		wantPeek  int
		wantErr   bool
		exactSize bool
	}{
		{"declared exactly", 10000, 1 << 20, io.EOF, 10000, false, true},
		{"unknown length", -1, 1 << 20, io.EOF, 10000, false, false},
		{"declared short of the body", 100, 1 << 20, io.EOF, 10000, false, false},
		{"over the cap", 10000, 4000, io.EOF, 4001, false, false},
		{"cap equals the body", 10000, 10000, io.EOF, 10000, false, false},
		{"read error", 10000, 1 << 20, io.ErrUnexpectedEOF, 10000, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			peek, rest, err := peekBody(&chunky{text: body, err: c.err}, c.max, c.declared)
			if (err != nil) != c.wantErr || (c.wantErr && !errors.Is(err, c.err)) {
				t.Fatalf("err = %v", err)
			}
			if len(peek) != c.wantPeek || !bytes.Equal(peek, []byte(body[:c.wantPeek])) {
				t.Fatalf("peeked %d bytes, want %d", len(peek), c.wantPeek)
			}
			if c.exactSize && cap(peek) != len(body) {
				t.Errorf("buffer of %d bytes for a body of the declared %d", cap(peek), len(body))
			}
			all, err := io.ReadAll(rest)
			if (err != nil) != c.wantErr {
				t.Fatalf("replay: %v", err)
			}
			if string(all) != body {
				t.Fatalf("replayed %d bytes, want the whole %d", len(all), len(body))
			}
		})
	}
}
