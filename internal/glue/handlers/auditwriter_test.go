package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

func TestOverlaps(t *testing.T) {
	buf := make([]byte, 16, 32)
	for _, c := range []struct {
		name string
		a, b []byte
		want bool
	}{
		{"same", buf, buf, true},
		{"inside", buf[4:8], buf, true},
		{"touching end", buf[15:16], buf[:15], false},
		{"past length, within capacity", buf[16:20], buf, false},
		{"other memory", make([]byte, 16), buf, false},
		{"empty", buf[:0], buf, false},
	} {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("%s: overlaps = %v, want %v", c.name, got, c.want)
		}
	}
}

// A capture whose recorded body shares its memory stays out of the list,
// as does one grown past maxPooledCapture or one that came from no list;
// either way the writer lets go of it.
func TestReleaseCaptureKeepsSharedAndOutsizedBuffers(t *testing.T) {
	for _, c := range []struct {
		name   string
		buf    []byte
		pooled bool
		kept   func([]byte) []byte
		want   bool
	}{
		{"fresh body", make([]byte, 10, streamCaptureStart), true, func([]byte) []byte { return []byte(`{}`) }, true},
		{"body inside the capture", make([]byte, 10, streamCaptureStart), true, func(b []byte) []byte { return b[2:5] }, false},
		{"body in the capture's spare room", make([]byte, 10, streamCaptureStart), true, func(b []byte) []byte { return b[12:14] }, false},
		{"outsized", make([]byte, 10, maxPooledCapture+1), true, func([]byte) []byte { return nil }, false},
		{"not from the list", make([]byte, 10, streamCaptureStart), false, func([]byte) []byte { return nil }, false},
	} {
		drainCaptures()
		w := &auditWriter{buf: c.buf, pooled: c.pooled}
		w.releaseCapture(c.kept(c.buf))
		var got bool
		select {
		case b := <-captureBufs:
			got = len(b) == 0 && cap(b) == cap(c.buf) && &b[:1][0] == &c.buf[:1][0]
		default:
		}
		if got != c.want {
			t.Errorf("%s: given back = %v, want %v", c.name, got, c.want)
		}
		if w.buf != nil || w.pooled {
			t.Errorf("%s: the writer still holds its capture", c.name)
		}
	}
	// A full list drops what it has no room for.
	drainCaptures()
	for i := 0; i < cap(captureBufs)+5; i++ {
		w := &auditWriter{buf: make([]byte, 0, streamCaptureStart), pooled: true}
		w.releaseCapture(nil)
	}
	if n := len(captureBufs); n != cap(captureBufs) {
		t.Errorf("%d buffers held, want the list's %d", n, cap(captureBufs))
	}
	drainCaptures()
}

// drainCaptures empties the list of capture buffers.
func drainCaptures() {
	for {
		select {
		case <-captureBufs:
		default:
			return
		}
	}
}

// Streams recorded one after another, each capture going back to the pool
// and out again, keep their own recorded answers: reusing a capture never
// changes an entry already handed to storage.
func TestStreamsRecordedAfterCaptureReuse(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	rt := chatRoute(t)
	const n = 50
	for i := 0; i < n; i++ {
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
		r = r.WithContext(reqinfo.With(context.Background(), reqinfo.New()))
		_ = auditRoute(au, rt, httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", "text/event-stream")
			for j := 0; j < 3; j++ {
				_, _ = io.WriteString(w, fmt.Sprintf(`data: {"id":"c%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"s%d-%d "},"finish_reason":null}]}`+"\n\n", i, i, j))
			}
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
			return nil
		})
	}
	if len(m.entries) != n {
		t.Fatalf("%d entries, want %d", len(m.entries), n)
	}
	for i, e := range m.entries {
		want := fmt.Sprintf(`"content":"s%d-0 s%d-1 s%d-2 "`, i, i, i)
		if !strings.Contains(string(e.Data.ResponseBody), want) || !strings.Contains(string(e.Data.ResponseBody), fmt.Sprintf(`"id":"c%d"`, i)) {
			t.Fatalf("entry %d recorded %s, want it to hold %s", i, e.Data.ResponseBody, want)
		}
	}
}
