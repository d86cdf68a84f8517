package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// Upstream streams of both provider shapes, cut into events: each ends
// with its blank line.
var (
	chatUpstream = []string{
		"data: {\"id\":\"chatcmpl-1\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
		"data: {\"id\":\"chatcmpl-1\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n",
		"data: {\"id\":\"chatcmpl-1\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"id\":\"chatcmpl-1\",\"model\":\"m1\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}\n\n",
		"data: [DONE]\n\n",
	}
	messagesUpstream = []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	}
)

// ingressCase is one client shape served by translation.
type ingressCase struct {
	name, path, body string
	upstream         []string // the provider's stream
	anthropic        bool     // the provider speaks Messages
	// ending classifies the client's last event: "complete", "error" or
	// "" (neither: the stream just stopped).
	ending func(last sse.Event) string
}

var translatedIngresses = []ingressCase{
	{name: "messages", path: "/v1/messages", upstream: chatUpstream,
		body: `{"model":"m1","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"Say hello"}]}`,
		ending: func(last sse.Event) string {
			switch {
			case last.Name == "message_stop":
				return "complete"
			case last.Name == "error" && gjson.GetBytes(last.Data, "type").Str == "error" &&
				gjson.GetBytes(last.Data, "error.type").Str != "" && gjson.GetBytes(last.Data, "error.message").Str != "":
				return "error"
			}
			return ""
		}},
	{name: "chat", path: "/v1/chat/completions", upstream: messagesUpstream, anthropic: true,
		body: `{"model":"m1","stream":true,"messages":[{"role":"user","content":"Say hello"}]}`,
		ending: func(last sse.Event) string {
			switch {
			case string(last.Data) == "[DONE]":
				return "complete"
			case gjson.GetBytes(last.Data, "error.message").Str != "" && gjson.GetBytes(last.Data, "error.type").Str != "":
				return "error"
			}
			return ""
		}},
	{name: "responses", path: "/v1/responses", upstream: chatUpstream,
		body:   `{"model":"m1","stream":true,"input":"Say hello"}`,
		ending: responsesEnding},
	{name: "responses via messages", path: "/v1/responses", upstream: messagesUpstream, anthropic: true,
		body:   `{"model":"m1","stream":true,"input":"Say hello"}`,
		ending: responsesEnding},
}

func responsesEnding(last sse.Event) string {
	switch last.Name {
	case "response.completed":
		return "complete"
	case "response.failed":
		if gjson.GetBytes(last.Data, "response.error.message").Str != "" {
			return "error"
		}
	}
	return ""
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// serveTranslated sends c's request to a provider whose stream is body and
// returns the client's stream and the gateway's log.
func serveTranslated(t *testing.T, c ingressCase, body func() io.Reader) (string, *observer.ObservedLogs) {
	t.Helper()
	answer := func(providers.Endpoint, string, []byte) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(body()), ContentLength: -1}
	}
	var s *Service
	if c.anthropic {
		p := &messagesStub{stubProvider{name: "anth", answer: answer}}
		reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
		reg.Start(context.Background())
		<-reg.Ready()
		s = &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	} else {
		s = newService(t, &stubProvider{name: "up", streamOpt: true, answer: answer})
	}
	core, logs := observer.New(zap.DebugLevel)
	s.Logger = zap.New(core)
	rec, _ := serve(s, "POST", c.path, c.body)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	return rec.Body.String(), logs
}

// clientEvents checks that out is well-framed (every event ends with a
// blank line, every data payload but [DONE] is JSON) and returns its
// events.
func clientEvents(t *testing.T, out string) []sse.Event {
	t.Helper()
	if !strings.HasSuffix(out, "\n\n") {
		t.Fatalf("the stream does not end with a whole event:\n%s", out)
	}
	evs := sse.Split([]byte(out))
	for _, ev := range evs {
		if string(ev.Data) != "[DONE]" && !gjson.ValidBytes(ev.Data) {
			t.Fatalf("event data is not JSON: %q", ev.Data)
		}
	}
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs
}

func TestTranslatedStreamSkipsUnreadableLines(t *testing.T) {
	for _, c := range translatedIngresses {
		t.Run(c.name, func(t *testing.T) {
			up := strings.Join(c.upstream[:2], "") + "data: keep-alive\n\n" + ": comment\n\n" + strings.Join(c.upstream[2:], "")
			out, logs := serveTranslated(t, c, func() io.Reader { return strings.NewReader(up) })
			evs := clientEvents(t, out)
			if got := c.ending(evs[len(evs)-1]); got != "complete" {
				t.Fatalf("ending %q, want complete:\n%s", got, out)
			}
			if !strings.Contains(out, "lo") {
				t.Fatalf("events after the keep-alive were lost:\n%s", out)
			}
			if logs.FilterMessage("skipped an unreadable upstream stream event").Len() != 1 {
				t.Fatalf("skipped event not logged: %v", logs.All())
			}
		})
	}
}

func TestTranslatedStreamBrokenUpstreamEndsWithError(t *testing.T) {
	const secretAddr = "127.0.0.1:22100"
	for _, c := range translatedIngresses {
		head := strings.Join(c.upstream[:3], "")
		rest := strings.Join(c.upstream[3:], "")
		faults := []struct {
			name string
			body func() io.Reader
			want string
		}{
			{"cut mid-event", func() io.Reader { return strings.NewReader(head + rest[:len(rest)/2]) }, "error"},
			{"cut mid-event after finishing", func() io.Reader {
				return strings.NewReader(head + c.upstream[3] + c.upstream[4][:len(c.upstream[4])/2])
			}, "error"},
			{"reset", func() io.Reader {
				return io.MultiReader(strings.NewReader(head),
					errReader{errors.New("read tcp 127.0.0.1:51332->" + secretAddr + ": connection reset by peer")})
			}, "error"},
			{"unexpected EOF after the last event", func() io.Reader {
				return io.MultiReader(strings.NewReader(head+rest[:len(rest)-len("\n\n")]), errReader{io.ErrUnexpectedEOF})
			}, "error"},
			{"pipe closed with an error", func() io.Reader {
				pr, pw := io.Pipe()
				go func() {
					for _, ev := range c.upstream[:2] {
						_, _ = pw.Write([]byte(ev))
					}
					pw.CloseWithError(io.ErrUnexpectedEOF)
				}()
				return pr
			}, "error"},
			{"no blank line after the last event", func() io.Reader {
				return strings.NewReader(strings.TrimSuffix(head+rest, "\n"))
			}, "complete"},
			{"whole", func() io.Reader { return strings.NewReader(head + rest) }, "complete"},
		}
		for _, f := range faults {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				out, _ := serveTranslated(t, c, f.body)
				evs := clientEvents(t, out)
				if got := c.ending(evs[len(evs)-1]); got != f.want {
					t.Fatalf("ending %q, want %q:\n%s", got, f.want, out)
				}
				if strings.Contains(out, secretAddr) || strings.Contains(out, "unexpected EOF") {
					t.Fatalf("the upstream's error text reached the client:\n%s", out)
				}
				if f.want == "error" && (strings.Contains(out, "message_stop") || strings.Contains(out, "[DONE]") ||
					strings.Contains(out, "response.completed")) {
					t.Fatalf("a broken stream also claims success:\n%s", out)
				}
			})
		}
	}
}

func TestTranslatedStreamTimeoutIsNamed(t *testing.T) {
	c := translatedIngresses[0]
	out, _ := serveTranslated(t, c, func() io.Reader {
		return io.MultiReader(strings.NewReader(c.upstream[0]), errReader{context.DeadlineExceeded})
	})
	evs := clientEvents(t, out)
	if last := evs[len(evs)-1]; last.Name != "error" || gjson.GetBytes(last.Data, "error.type").Str != "timeout_error" {
		t.Fatalf("%s", out)
	}
	if !bytes.Contains([]byte(out), []byte("message_start")) {
		t.Fatalf("the events before the timeout were lost:\n%s", out)
	}
}
