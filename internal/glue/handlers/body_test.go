package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
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

// timingOutBody is a request body whose client stalls: its read fails
// with the deadline error net/http gives once read_body_timeout passed,
// and the failed read cancels the request's context, as net/http does.
type timingOutBody struct {
	head   string
	cancel context.CancelFunc
}

func (b *timingOutBody) Read(p []byte) (int, error) {
	if b.head != "" {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	b.cancel()
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
}

func (b *timingOutBody) Close() error { return nil }

// TestAuditStageAnswersStalledBody: a body that does not arrive in time is
// answered 408 request_timeout by the audit stage, which reads it first,
// and recorded as such, not as a client that went away (499).
func TestAuditStageAnswersStalledBody(t *testing.T) {
	m := &memAudit{}
	info := reqinfo.New()
	ctx, cancel := context.WithCancel(reqinfo.With(context.Background(), info))
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, "POST", "/v1/chat/completions", nil)
	r.Body, r.ContentLength = &timingOutBody{head: `{"model":"x","messages":[`, cancel: cancel}, 100000
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	_ = auditRoute(testAuditing(m, 1<<20), chatRoute(t), w, r, func(http.ResponseWriter, *http.Request) error {
		t.Error("the next stage ran for a body that timed out")
		return nil
	})
	if w.Code != 408 || !strings.Contains(w.Body.String(), `"code":"request_timeout"`) {
		t.Fatalf("answer %d %s", w.Code, w.Body)
	}
	if len(m.entries) != 1 || m.entries[0].StatusCode != 408 || m.entries[0].Data.ErrorCode != apierr.CodeRequestTimeout {
		t.Fatalf("entries %+v", m.entries[0])
	}
}
