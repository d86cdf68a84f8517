package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
	"github.com/modelgate/modelgate/internal/testkit/ssecheck"
)

// chunkReader hands out data in pieces whose sizes cycle through sizes,
// then fails with end.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
	end   error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.end
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = min(n, int(r.sizes[r.i%len(r.sizes)])%64+1)
		r.i++
	}
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// relayCase is one translated route: a client shape served by a provider
// of the other shape.
type relayCase struct {
	path, body string
	shape      ssecheck.Shape
	svc        *Service
}

// FuzzStreamRelays runs arbitrary upstream bytes, arriving in pieces of
// arbitrary sizes and ending cleanly or with a read error, through the
// gateway's event splitter and through every translated stream relay. The
// splitter must return the bytes as they came, cut after each blank line;
// every relay must write a well-framed stream of its client's shape that
// ends with its closing event or an error event, with nothing after it.
// Passthrough must relay the stream unchanged when it ends well, and
// otherwise its whole events only, then abort the answer.
func FuzzStreamRelays(f *testing.F) {
	for _, s := range [][]byte{
		fixtures.Must(f, "anthropic", "messages_stream.txt"),
		fixtures.Must(f, "openai", "chat_completion_stream.txt"),
		fixtures.Must(f, "groq", "chat_completion_stream.txt"),
	} {
		f.Add(s, []byte{3, 200, 17}, false)
		f.Add(s[:len(s)*2/3], []byte{}, true)
		f.Add(bytes.ReplaceAll(s, []byte("\n\n"), []byte("\n\ndata: keep-alive\n\n")), []byte{63}, false)
	}

	var upstream []byte
	var sizes []byte
	var fail bool
	body := func() io.Reader {
		end := io.EOF
		if fail {
			end = errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: connection reset by peer")
		}
		return &chunkReader{data: upstream, sizes: sizes, end: end}
	}
	answer := func(providers.Endpoint, string, []byte) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(body()), ContentLength: -1}
	}
	chatSvc := newService(f, &stubProvider{name: "up", streamOpt: true, answer: answer})
	anth := &messagesStub{stubProvider{name: "anth", answer: answer}}
	reg := providers.NewRegistry([]providers.Entry{{Provider: anth, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	anthSvc := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	rawSvc := passthroughService(f, func() *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(body()), ContentLength: -1}
	})
	cases := []relayCase{
		{"/v1/messages", `{"model":"m1","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, ssecheck.Messages, chatSvc},
		{"/v1/responses", `{"model":"m1","stream":true,"input":"hi"}`, ssecheck.Responses, chatSvc},
		{"/v1/chat/completions", `{"model":"m1","stream":true,"messages":[{"role":"user","content":"hi"}]}`, ssecheck.Chat, anthSvc},
		{"/v1/responses", `{"model":"m1","stream":true,"input":"hi"}`, ssecheck.Responses, anthSvc},
	}

	f.Fuzz(func(t *testing.T, b, chunkSizes []byte, broken bool) {
		upstream, sizes, fail = b, chunkSizes, broken

		// The splitter: the bytes as they came, one event per piece.
		events := newEventReader(body())
		var got []byte
		for {
			ev, err := events.Next()
			got = append(got, ev...)
			if err != nil {
				break
			}
			if !bytes.HasSuffix(ev, []byte("\n")) || !isBlankLine(lastLine(ev)) || bytes.Contains(ev[:len(ev)-len(lastLine(ev))], []byte("\n\n")) {
				t.Fatalf("event %q does not end at its first blank line", ev)
			}
		}
		events.Release()
		if !bytes.Equal(got, b) {
			t.Fatalf("the splitter changed the stream:\n%q\n%q", b, got)
		}

		for _, c := range cases {
			rec, _ := serve(c.svc, "POST", c.path, c.body)
			if rec.Code != 200 {
				t.Fatalf("%s: status %d: %s", c.path, rec.Code, rec.Body.String())
			}
			out := rec.Body.Bytes()
			evs, err := ssecheck.Parse(out)
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			if ssecheck.Ending(c.shape, evs) == "" {
				t.Fatalf("%s: the stream just stops:\n%s", c.path, out)
			}
			for i := range evs[:len(evs)-1] {
				if ssecheck.Ending(c.shape, evs[:i+1]) != "" {
					t.Fatalf("%s: events after the end (event %d of %d):\n%s", c.path, i, len(evs), out)
				}
			}
			if bytes.Contains(out, []byte("127.0.0.1")) {
				t.Fatalf("%s: the read error's text reached the client:\n%s", c.path, out)
			}
		}

		// Passthrough: the stream as it came when it ends well (between
		// events, or after a whole line); else its whole events, and an
		// aborted answer.
		var whole []byte
		events = newEventReader(body())
		ev, err := events.Next()
		for ; err == nil; ev, err = events.Next() {
			whole = append(whole, ev...)
		}
		events.Release()
		clean := err == io.EOF && (len(ev) == 0 || endsLine(ev))
		if clean {
			whole = append(whole, ev...)
		}
		rec, aborted := servePassthrough(rawSvc, `{"model":"m1","stream":true}`)
		if aborted == clean || !bytes.Equal(rec.Body.Bytes(), whole) {
			t.Fatalf("passthrough: aborted %v, relayed %q, want %q", aborted, rec.Body.Bytes(), whole)
		}
	})
}

// servePassthrough posts body to /p/up/chat/completions on s and reports
// whether the answer was aborted (http.ErrAbortHandler).
func servePassthrough(s *Service, body string) (rec *httptest.ResponseRecorder, aborted bool) {
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/p/up/chat/completions", strings.NewReader(body))
	req.Header["Content-Type"] = jsonContentType
	req = req.WithContext(reqinfo.With(req.Context(), reqinfo.New()))
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			aborted = true
		}
	}()
	s.ServeHTTP(rec, req)
	return rec, false
}

// lastLine returns the last line of ev, its newline included.
func lastLine(ev []byte) []byte {
	i := bytes.LastIndexByte(ev[:len(ev)-1], '\n')
	return ev[i+1:]
}

// isBlankLine reports whether line, its newline included, is a blank
// line ("\n" or "\r\n"), the end of an event.
func isBlankLine(line []byte) bool {
	return len(line) == 1 || (len(line) == 2 && line[0] == '\r')
}
