package e2e

// Shared helpers of the API end-to-end tests (files api_*_test.go): a fake
// upstream that replays recorded provider responses and records what it
// received, an official-SDK client bound to the gateway, and readers for
// the gateway's error shape and raw SSE streams.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// apiMasterKey is the gateway master key used by the API tests.
const apiMasterKey = "mg-master-e2e-0123456789"

// apiRecorded is one request an upstream received.
type apiRecorded struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// JSON decodes the recorded body as a JSON object.
func (r apiRecorded) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("upstream received a non-JSON body: %v\n%s", err, r.Body)
	}
	return m
}

// apiReplay is a fake upstream of one provider family. It serves
// GET /v1/models from the family's models.json and answers
// POST /v1/chat/completions with a chosen fixture, byte for byte: JSON
// fixtures as application/json, *_stream.txt fixtures as
// text/event-stream, written event by event with a flush after each. Every
// request is recorded. Handlers can be overridden per path.
type apiReplay struct {
	family string
	dir    string // the family's fixtures directory
	srv    *httptest.Server

	mu        sync.Mutex
	reqs      []apiRecorded
	chatFix   string
	overrides map[string]http.HandlerFunc
}

// apiNewReplay starts a replay upstream for family; it is closed at test
// end.
func apiNewReplay(t testing.TB, family string) *apiReplay {
	t.Helper()
	u := &apiReplay{family: family, dir: filepath.Join(fixturesDir(t), family), chatFix: "chat_completion.json", overrides: map[string]http.HandlerFunc{}}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// BaseURL is the upstream's API root, as a provider base_url.
func (u *apiReplay) BaseURL() string { return u.srv.URL + "/v1" }

// Respond makes the next non-streamed chat answers replay fixture name.
// Streamed requests (stream:true) always get chat_completion_stream.txt
// unless name itself is a *_stream.txt fixture.
func (u *apiReplay) Respond(name string) {
	u.mu.Lock()
	u.chatFix = name
	u.mu.Unlock()
}

// Handle overrides the handler of path (e.g. "/v1/models").
func (u *apiReplay) Handle(path string, h http.HandlerFunc) {
	u.mu.Lock()
	u.overrides[path] = h
	u.mu.Unlock()
}

// Requests returns the recorded requests to path ("" for all).
func (u *apiReplay) Requests(path string) []apiRecorded {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []apiRecorded
	for _, r := range u.reqs {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// LastChat returns the last chat request received, failing if none.
func (u *apiReplay) LastChat(t testing.TB) apiRecorded {
	t.Helper()
	rs := u.Requests("/v1/chat/completions")
	if len(rs) == 0 {
		t.Fatalf("%s upstream received no chat request", u.family)
	}
	return rs[len(rs)-1]
}

// Reset forgets the recorded requests.
func (u *apiReplay) Reset() {
	u.mu.Lock()
	u.reqs = nil
	u.mu.Unlock()
}

func (u *apiReplay) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.reqs = append(u.reqs, apiRecorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	h, overridden := u.overrides[r.URL.Path]
	fix := u.chatFix
	u.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if overridden {
		h(w, r)
		return
	}
	// Handlers run off the test goroutine: a missing fixture is a 500,
	// which the test then reports, never a t.Fatal here.
	load := func(name string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(u.dir, name))
		if err != nil {
			http.Error(w, "replay: "+err.Error(), http.StatusInternalServerError)
			return nil, false
		}
		return b, true
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		b, ok := load("models.json")
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Stream && !strings.HasSuffix(fix, "_stream.txt") {
			fix = "chat_completion_stream.txt"
		}
		b, ok := load(fix)
		if !ok {
			return
		}
		if strings.HasSuffix(fix, "_stream.txt") {
			apiWriteSSE(w, b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	default:
		http.Error(w, `{"error":{"message":"replay: no route","type":"invalid_request_error"}}`, http.StatusNotFound)
	}
}

// apiWriteSSE writes a recorded event stream as is, one event (up to and
// including its blank line) at a time, flushing after each.
func apiWriteSSE(w http.ResponseWriter, raw []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range apiSplitEvents(raw) {
		if _, err := w.Write(ev); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// apiSplitEvents splits raw SSE bytes into events, each keeping its
// terminating blank line; concatenating them gives raw back.
func apiSplitEvents(raw []byte) [][]byte {
	var out [][]byte
	for len(raw) > 0 {
		i := bytes.Index(raw, []byte("\n\n"))
		if i < 0 {
			out = append(out, raw)
			break
		}
		out = append(out, raw[:i+2])
		raw = raw[i+2:]
	}
	return out
}

// apiEventData returns the data payloads of raw SSE bytes, in order,
// without the final [DONE].
func apiEventData(raw []byte) []string {
	var out []string
	for _, ev := range apiSplitEvents(raw) {
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

// apiStreamExpect is what a client should accumulate from a recorded
// stream: the concatenated content deltas of choice 0 and the usage of the
// chunks that carry one (summed, as the SDK accumulator does).
type apiStreamExpect struct {
	Content                       string
	Prompt, Completion, Total     int64
	UsageChunks, EmptyChoiceChunk int
}

func apiExpectFromStream(t testing.TB, raw []byte) apiStreamExpect {
	t.Helper()
	e, err := apiParseStream(raw)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// apiParseStream is apiExpectFromStream without a testing.TB, for use off
// the test goroutine.
func apiParseStream(raw []byte) (apiStreamExpect, error) {
	var e apiStreamExpect
	for _, d := range apiEventData(raw) {
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
			return e, fmt.Errorf("stream chunk is not JSON: %v\n%s", err, d)
		}
		for _, c := range chunk.Choices {
			if c.Index == 0 && c.Delta.Content != nil {
				e.Content += *c.Delta.Content
			}
		}
		if chunk.Choices != nil && len(chunk.Choices) == 0 {
			e.EmptyChoiceChunk++
		}
		if chunk.Usage != nil {
			e.UsageChunks++
			e.Prompt += chunk.Usage.Prompt
			e.Completion += chunk.Usage.Completion
			e.Total += chunk.Usage.Total
		}
	}
	return e, nil
}

// apiFixtureChat is the part of a recorded chat completion the tests
// compare.
type apiFixtureChat struct {
	Choices []struct {
		Message struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		Prompt     int64 `json:"prompt_tokens"`
		Completion int64 `json:"completion_tokens"`
		Total      int64 `json:"total_tokens"`
	} `json:"usage"`
}

func apiParseFixtureChat(t testing.TB, family, name string) apiFixtureChat {
	t.Helper()
	var c apiFixtureChat
	if err := json.Unmarshal(fixture(t, family, name), &c); err != nil {
		t.Fatalf("%s/%s: %v", family, name, err)
	}
	if len(c.Choices) == 0 {
		t.Fatalf("%s/%s has no choices", family, name)
	}
	return c
}

// apiFixtureExists reports whether family has fixture name.
func apiFixtureExists(t testing.TB, family, name string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(fixturesDir(t), family, name))
	return err == nil
}

// apiSDK returns an official OpenAI client pointed at the gateway, with
// retries off so that every error surfaces as the gateway sent it.
func apiSDK(g *gateway, key string, extra ...option.RequestOption) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(g.URL + "/v1/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(20 * time.Second),
	}
	return openai.NewClient(append(opts, extra...)...)
}

// apiClearEnv blanks every environment variable the gateway (or the SDK)
// reads, for the duration of the test, so the host environment cannot add
// providers or a master key. Blank counts as unset for the gateway.
func apiClearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasSuffix(k, "_API_KEY"), strings.HasSuffix(k, "_BASE_URL"),
			k == "GATEWAY_MASTER_KEY", k == "MAX_REQUEST_BODY_BYTES",
			strings.HasPrefix(k, "OPENAI_"):
			t.Setenv(k, "")
		}
	}
}

// apiHTTP sends a request to the gateway with an optional bearer key and
// returns the status, headers and body.
func apiHTTP(t testing.TB, method, url, key, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header, b
}

// apiErr is the gateway's error body.
type apiErr struct {
	Type       string  `json:"type"`
	Message    string  `json:"message"`
	Code       *string `json:"code"`
	Param      *string `json:"param"`
	Provider   string  `json:"provider"`
	StatusCode int     `json:"status_code"`
}

// apiDecodeErr checks that body is exactly the gateway error shape
// {"error":{type,message,code,param,provider,status_code}} for status and
// returns it.
func apiDecodeErr(t testing.TB, status int, body []byte) apiErr {
	t.Helper()
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("error body is not {\"error\":{...}}: %v\n%s", err, body)
	}
	if len(raw) != 1 || raw["error"] == nil {
		t.Fatalf("error body must have exactly the key \"error\": %s", body)
	}
	for _, k := range []string{"type", "message", "code", "param", "provider", "status_code"} {
		if _, ok := raw["error"][k]; !ok {
			t.Errorf("error body lacks error.%s: %s", k, body)
		}
	}
	var e struct {
		Error apiErr `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body: %v\n%s", err, body)
	}
	if e.Error.StatusCode != status {
		t.Errorf("error.status_code = %d, HTTP status %d", e.Error.StatusCode, status)
	}
	if e.Error.Message == "" {
		t.Errorf("error.message is empty: %s", body)
	}
	return e.Error
}

func apiStr(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// apiReadEvent reads one SSE event (through its blank line) from r.
func apiReadEvent(r *bufio.Reader) (string, error) {
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

// apiClosedURL returns an http base URL on a loopback port nobody listens
// on.
func apiClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// apiProvider renders one provider block of the modelgate option.
func apiProvider(name, typ, key, baseURL string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s {\n\t\t\ttype %s\n", name, typ)
	if key != "" {
		fmt.Fprintf(&b, "\t\t\tapi_key %s\n", key)
	}
	if baseURL != "" {
		fmt.Fprintf(&b, "\t\t\tbase_url %s\n", baseURL)
	}
	for _, e := range extra {
		fmt.Fprintf(&b, "\t\t\t%s\n", e)
	}
	b.WriteString("\t\t}\n")
	return b.String()
}

// apiNoSecret fails if any header of r carries secret.
func apiNoSecret(t testing.TB, r apiRecorded, secret string) {
	t.Helper()
	for k, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, secret) {
				t.Errorf("upstream received the client's credential in header %s: %q", k, v)
			}
		}
	}
	if bytes.Contains(r.Body, []byte(secret)) {
		t.Errorf("upstream received the client's credential in the body")
	}
}
