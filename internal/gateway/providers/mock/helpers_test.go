package mock

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// serve sends one request to a handler built from opts.
func do(t testing.TB, opts Options, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return serveHandler(NewHandler(opts), method, path, body)
}

func serveHandler(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// mustJSON parses a response body, failing the test when it is not JSON.
func mustJSON(t testing.TB, body string) gjson.Result {
	t.Helper()
	if !gjson.Valid(body) {
		t.Fatalf("response is not valid JSON: %q", body)
	}
	return gjson.Parse(body)
}

// sseEvents returns the data payloads of a server-sent event stream,
// checking the framing: every event is "data: <payload>\n\n".
func sseEvents(t testing.TB, body string) []string {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	expectBlank := false
	for sc.Scan() {
		line := sc.Text()
		if expectBlank {
			if line != "" {
				t.Fatalf("event not followed by a blank line: %q", line)
			}
			expectBlank = false
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected SSE line %q", line)
		}
		events = append(events, data)
		expectBlank = true
	}
	if expectBlank {
		t.Fatalf("stream does not end with a blank line")
	}
	return events
}

// streamResult is a streamed chat completion put back together.
type streamResult struct {
	chunks       []gjson.Result // every JSON chunk, in order
	content      string
	toolID       string
	toolName     string
	toolArgs     string
	finishReason string
	usage        gjson.Result // from the final choices:[] chunk, if any
}

// reassemble checks and combines the chunks of a chat stream.
func reassemble(t testing.TB, events []string) streamResult {
	t.Helper()
	if len(events) == 0 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", events)
	}
	var res streamResult
	for i, e := range events[:len(events)-1] {
		c := mustJSON(t, e)
		res.chunks = append(res.chunks, c)
		if got := c.Get("object").String(); got != "chat.completion.chunk" {
			t.Errorf("chunk %d object = %q", i, got)
		}
		choices := c.Get("choices").Array()
		if len(choices) == 0 {
			res.usage = c.Get("usage")
			continue
		}
		d := choices[0].Get("delta")
		res.content += d.Get("content").String()
		tc := d.Get("tool_calls.0")
		if id := tc.Get("id").String(); id != "" {
			res.toolID = id
		}
		res.toolName += tc.Get("function.name").String()
		res.toolArgs += tc.Get("function.arguments").String()
		if fr := choices[0].Get("finish_reason"); fr.Type == gjson.String {
			res.finishReason = fr.Str
		}
	}
	return res
}

func serveRequest(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
