package e2e

// Server-sent events, the one way the tests frame and split them: an event
// ends at a blank line, whether lines end in "\n" or "\r\n". Writers for
// fake upstreams, readers for what the gateway sent, and what a client
// should accumulate from a chat stream.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// readEvent reads one event from r: its lines up to and including the
// blank line that ends it. At the end of the input it returns what is
// left (possibly an unterminated event) with the reader's error.
func readEvent(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return b.String(), err
		}
		if line == "\n" || line == "\r\n" {
			return b.String(), nil
		}
	}
}

// splitEvents splits raw SSE bytes into events as readEvent reads them,
// each keeping its terminating blank line; concatenating them gives raw
// back.
func splitEvents(raw []byte) [][]byte {
	var out [][]byte
	r := bufio.NewReader(bytes.NewReader(raw))
	for {
		ev, err := readEvent(r)
		if ev != "" {
			out = append(out, []byte(ev))
		}
		if err != nil {
			return out
		}
	}
}

// eventData returns the data payloads of raw SSE bytes, in order, without
// the final [DONE].
func eventData(raw []byte) []string {
	var out []string
	for _, ev := range splitEvents(raw) {
		for _, line := range strings.Split(string(ev), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				d = strings.TrimPrefix(d, " ")
				if d != "[DONE]" {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// writeSSE writes a recorded event stream as is, one event (up to and
// including its blank line) at a time, flushing after each.
func writeSSE(w http.ResponseWriter, raw []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range splitEvents(raw) {
		if _, err := w.Write(ev); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// writeEvents writes server-sent events, flushing after each: every entry
// is "name\x00data" (an event: line and a data: line) or just data.
func writeEvents(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range events {
		if name, data, ok := strings.Cut(ev, "\x00"); ok {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		} else {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
		_ = rc.Flush()
	}
}

// expectRelayedStream checks that res is a 200 event stream carrying the
// recorded stream family/name byte for byte.
func expectRelayedStream(t testing.TB, res response, family, name string) {
	t.Helper()
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q: %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	if raw := fixtures.Must(t, family, name); !bytes.Equal(res.Body, raw) {
		t.Errorf("stream not passed through byte for byte:\n got %q\nwant %q", res.Body, raw)
	}
}

// streamSummary is what a client should accumulate from a chat stream: the
// concatenated content deltas of choice 0 and the usage of the chunks that
// carry one (summed, as the SDK accumulator does).
type streamSummary struct {
	Content                       string
	Prompt, Completion, Total     int64
	UsageChunks, EmptyChoiceChunk int
}

// summarizeStream is parseStream for the test goroutine.
func summarizeStream(t testing.TB, raw []byte) streamSummary {
	t.Helper()
	s, err := parseStream(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parseStream summarizes a chat stream; it does not touch a testing.TB, so
// goroutines may use it.
func parseStream(raw []byte) (streamSummary, error) {
	var s streamSummary
	for _, d := range eventData(raw) {
		var chunk struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int64 `json:"prompt_tokens"`
				Completion int64 `json:"completion_tokens"`
				Total      int64 `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(d), &chunk); err != nil {
			return s, fmt.Errorf("stream chunk is not JSON: %v\n%s", err, d)
		}
		for _, c := range chunk.Choices {
			if c.Index == 0 && c.Delta.Content != nil {
				s.Content += *c.Delta.Content
			}
		}
		if chunk.Choices != nil && len(chunk.Choices) == 0 {
			s.EmptyChoiceChunk++
		}
		if chunk.Usage != nil {
			s.UsageChunks++
			s.Prompt += chunk.Usage.Prompt
			s.Completion += chunk.Usage.Completion
			s.Total += chunk.Usage.Total
		}
	}
	return s, nil
}

// TestSplitEvents: the splitter agrees with readEvent on "\n" and "\r\n"
// streams, keeps every byte, and leaves an unterminated last event whole.
func TestSplitEvents(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		want      []string
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{"crlf", "data: a\r\n\r\nevent: x\r\ndata: b\r\n\r\n", []string{"data: a\r\n\r\n", "event: x\r\ndata: b\r\n\r\n"}},
		{"unterminated last event", ": ping\n\ndata: [DONE]\n", []string{": ping\n\n", "data: [DONE]\n"}},
		{"extra blank line", "data: a\n\n\ndata: b", []string{"data: a\n\n", "\n", "data: b"}},
		{"empty", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			joined := ""
			for _, ev := range splitEvents([]byte(c.raw)) {
				got = append(got, string(ev))
				joined += string(ev)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
				t.Errorf("events %q, want %q", got, c.want)
			}
			if joined != c.raw {
				t.Errorf("concatenated %q, want the input %q", joined, c.raw)
			}
		})
	}
	if got := eventData([]byte("data: {\"a\":1}\r\n\r\ndata:{\"b\":2}\n\ndata: [DONE]\n\n")); fmt.Sprint(got) != `[{"a":1} {"b":2}]` {
		t.Errorf("eventData = %q", got)
	}
}
