package e2e

// Fake upstreams: replays of the recorded provider responses (one
// OpenAI-compatible family each, and Anthropic) that record what they
// received, a slow upstream for the concurrency tests, the gateways built
// over them, and what the recorded responses say a client must see.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// anthropicKey is the provider key configured for Anthropic replays.
const anthropicKey = "sk-ant-prov-SECRET-4444"

// claudeModel is the model the Anthropic replay lists.
const claudeModel = "claude-sonnet-4-20250514"

// anthropicModels is the Anthropic replay's model listing, in Anthropic's
// list format.
const anthropicModels = `{"data":[` +
	`{"type":"model","id":"claude-sonnet-4-20250514","display_name":"Claude Sonnet 4","created_at":"2025-05-22T00:00:00Z"},` +
	`{"type":"model","id":"claude-3-5-haiku-20241022","display_name":"Claude Haiku 3.5","created_at":"2024-10-22T00:00:00Z"}],` +
	`"has_more":false,"first_id":"claude-sonnet-4-20250514","last_id":"claude-3-5-haiku-20241022"}`

// recorded is one request an upstream received.
type recorded struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// JSON decodes the recorded body as a JSON object.
func (r recorded) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("upstream received a non-JSON body: %v\n%s", err, r.Body)
	}
	return m
}

// noSecret fails if any header or the body of r carries secret.
func noSecret(t testing.TB, r recorded, secret string) {
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

// replay is a fake upstream of one provider family. It serves
// GET /v1/models from the family's models.json and answers
// POST /v1/chat/completions with a chosen fixture, byte for byte: JSON
// fixtures as application/json, *_stream.txt fixtures as
// text/event-stream, written event by event with a flush after each. Every
// request is recorded. Handlers can be overridden per path.
type replay struct {
	family string
	srv    *httptest.Server

	mu        sync.Mutex
	reqs      []recorded
	chatFix   string
	overrides map[string]http.HandlerFunc
}

// newReplay starts a replay upstream for family; it is closed at test end.
func newReplay(t testing.TB, family string) *replay {
	t.Helper()
	u := &replay{family: family, chatFix: "chat_completion.json", overrides: map[string]http.HandlerFunc{}}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// BaseURL is the upstream's API root, as a provider base_url.
func (u *replay) BaseURL() string { return u.srv.URL + "/v1" }

// Respond makes the next non-streamed chat answers replay fixture name.
// Streamed requests (stream:true) always get chat_completion_stream.txt
// unless name itself is a *_stream.txt fixture.
func (u *replay) Respond(name string) {
	u.mu.Lock()
	u.chatFix = name
	u.mu.Unlock()
}

// Handle overrides the handler of path (e.g. "/v1/models").
func (u *replay) Handle(path string, h http.HandlerFunc) {
	u.mu.Lock()
	u.overrides[path] = h
	u.mu.Unlock()
}

// Unhandle removes the override of path, so it replays fixtures again.
func (u *replay) Unhandle(path string) {
	u.mu.Lock()
	delete(u.overrides, path)
	u.mu.Unlock()
}

// Requests returns the recorded requests to path ("" for all).
func (u *replay) Requests(path string) []recorded {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []recorded
	for _, r := range u.reqs {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Last returns the last request received on path, failing if none.
func (u *replay) Last(t testing.TB, path string) recorded {
	t.Helper()
	rs := u.Requests(path)
	if len(rs) == 0 {
		t.Fatalf("%s upstream received no %s request", u.family, path)
	}
	return rs[len(rs)-1]
}

// LastChat returns the last chat request received, failing if none.
func (u *replay) LastChat(t testing.TB) recorded {
	t.Helper()
	return u.Last(t, "/v1/chat/completions")
}

// Reset forgets the recorded requests.
func (u *replay) Reset() {
	u.mu.Lock()
	u.reqs = nil
	u.mu.Unlock()
}

func (u *replay) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.reqs = append(u.reqs, recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	h, overridden := u.overrides[r.URL.Path]
	fix := u.chatFix
	u.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if overridden {
		h(w, r)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		u.replayFixture(w, "models.json", false)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		if requestsStream(body) && !strings.HasSuffix(fix, "_stream.txt") {
			fix = "chat_completion_stream.txt"
		}
		u.replayFixture(w, fix, strings.HasSuffix(fix, "_stream.txt"))
	default:
		http.Error(w, `{"error":{"message":"replay: no route","type":"invalid_request_error"}}`, http.StatusNotFound)
	}
}

// replayFixture writes the family's fixture name as JSON or, when stream,
// as an event stream. Handlers run off the test goroutine: a missing
// fixture is a 500 in the provider's error shape, which the test then
// reports, never a t.Fatal here.
func (u *replay) replayFixture(w http.ResponseWriter, name string, stream bool) {
	b, err := fixtures.Read(u.family, name)
	if err != nil {
		msg, _ := json.Marshal("replay: " + err.Error())
		if u.family == "anthropic" {
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":`+string(msg)+`}}`, http.StatusInternalServerError)
		} else {
			http.Error(w, `{"error":{"message":`+string(msg)+`,"type":"server_error"}}`, http.StatusInternalServerError)
		}
		return
	}
	if stream {
		writeSSE(w, b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// requestsStream reports whether a request body asks for a stream.
func requestsStream(body []byte) bool {
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	return req.Stream
}

// anthropicReplay is a fake Anthropic API: GET /v1/models in Anthropic's
// list format, POST /v1/messages replaying anthropic/<fixture> byte for
// byte (messages_stream.txt, with its event: lines, when the request
// streams), and POST /v1/messages/count_tokens answering
// {"input_tokens":37}. Every request is recorded by the embedded replay.
type anthropicReplay struct {
	*replay

	amu    sync.Mutex
	fix    string
	custom func(w http.ResponseWriter, r *http.Request, body []byte) // nil: replay
}

// newAnthropicReplay starts an Anthropic replay upstream.
func newAnthropicReplay(t testing.TB) *anthropicReplay {
	t.Helper()
	a := &anthropicReplay{replay: newReplay(t, "anthropic"), fix: "messages.json"}
	a.Handle("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(anthropicModels))
	})
	a.Handle("/v1/messages/count_tokens", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"input_tokens":37}`))
	})
	a.Handle("/v1/messages", a.messages)
	return a
}

// Respond makes non-streamed /v1/messages answers replay fixture name.
func (a *anthropicReplay) Respond(name string) {
	a.amu.Lock()
	a.fix, a.custom = name, nil
	a.amu.Unlock()
}

// Script makes /v1/messages answer through h (nil: replay again).
func (a *anthropicReplay) Script(h func(w http.ResponseWriter, r *http.Request, body []byte)) {
	a.amu.Lock()
	a.custom = h
	a.amu.Unlock()
}

// LastMessages returns the last /v1/messages request, failing if none.
func (a *anthropicReplay) LastMessages(t testing.TB) recorded {
	t.Helper()
	return a.Last(t, "/v1/messages")
}

func (a *anthropicReplay) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.amu.Lock()
	fix, custom := a.fix, a.custom
	a.amu.Unlock()
	if custom != nil {
		custom(w, r, body)
		return
	}
	stream := requestsStream(body)
	if stream {
		fix = "messages_stream.txt"
	}
	a.replayFixture(w, fix, stream)
}

// checkAnthropicHeaders checks that an Anthropic upstream got the
// provider's key as x-api-key, the anthropic-version header and nothing of
// the client's credential.
func checkAnthropicHeaders(t testing.TB, r recorded) {
	t.Helper()
	if got := r.Header.Get("X-Api-Key"); got != anthropicKey {
		t.Errorf("anthropic upstream x-api-key = %q, want the provider key", got)
	}
	if got := r.Header.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic upstream anthropic-version = %q, want 2023-06-01", got)
	}
	if got := r.Header.Get("Authorization"); got != "" {
		t.Errorf("anthropic upstream got an Authorization header: %q", got)
	}
	noSecret(t, r, masterKey)
}

// replayFamily describes one replayed OpenAI-compatible provider family.
type replayFamily struct {
	family string // fixtures family and provider name
	key    string // the provider's api_key
	model  string // a model its listing serves (without prefix)
}

// replayFamilies are the OpenAI-compatible families with recorded
// responses, in the order the replay gateways configure them.
var replayFamilies = []replayFamily{
	{"openai", "sk-openai-prov-SECRET-1111", "gpt-4o-mini"},
	{"groq", "gsk-groq-prov-SECRET-2222", "llama-3.3-70b-versatile"},
	{"gemini", "gm-gemini-prov-SECRET-3333", "gemini-2.5-flash"},
}

// familyOf returns the replayed family of that name.
func familyOf(t testing.TB, name string) replayFamily {
	t.Helper()
	for _, f := range replayFamilies {
		if f.family == name {
			return f
		}
	}
	t.Fatalf("unknown family %q", name)
	return replayFamily{}
}

// startReplayGateway clears the environment, starts one replay upstream
// per family and a gateway with the master key and the three providers,
// in the order openai, groq, gemini.
func startReplayGateway(t *testing.T) (*gateway, map[string]*replay) {
	t.Helper()
	clearEnv(t)
	ups := map[string]*replay{}
	block := "master_key " + masterKey + "\n"
	for _, f := range replayFamilies {
		u := newReplay(t, f.family)
		ups[f.family] = u
		block += providerBlock(f.family, f.family, f.key, u.BaseURL())
	}
	return startGateway(t, block), ups
}

// matrixUpstreams are the upstreams of the matrix gateway.
type matrixUpstreams struct {
	anth                 *anthropicReplay
	openai, groq, gemini *replay
}

// byFamily returns the OpenAI-compatible upstream of that family.
func (u matrixUpstreams) byFamily(name string) *replay {
	switch name {
	case "openai":
		return u.openai
	case "groq":
		return u.groq
	case "gemini":
		return u.gemini
	}
	return nil
}

// startMatrixGateway clears the environment, starts the four upstreams
// and a gateway with the master key and providers anth (type anthropic),
// openai, groq and gemini.
func startMatrixGateway(t *testing.T) (*gateway, matrixUpstreams) {
	t.Helper()
	clearEnv(t)
	ups := matrixUpstreams{anth: newAnthropicReplay(t)}
	block := "master_key " + masterKey + "\n" +
		providerBlock("anth", "anthropic", anthropicKey, ups.anth.BaseURL())
	for _, f := range replayFamilies {
		u := newReplay(t, f.family)
		switch f.family {
		case "openai":
			ups.openai = u
		case "groq":
			ups.groq = u
		case "gemini":
			ups.gemini = u
		}
		block += providerBlock(f.family, f.family, f.key, u.BaseURL())
	}
	return startGateway(t, block), ups
}

// checkUpstreamChat checks what an OpenAI-compatible upstream got for a
// chat request: POST /v1/chat/completions, the model without the provider
// prefix, the provider's key as bearer token, and nothing of the client's
// credential. It returns the body.
func checkUpstreamChat(t *testing.T, f replayFamily, r recorded) map[string]any {
	t.Helper()
	if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
		t.Errorf("upstream got %s %s", r.Method, r.Path)
	}
	body := r.JSON(t)
	if body["model"] != f.model {
		t.Errorf("upstream saw model %v, want %q (without the provider prefix)", body["model"], f.model)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.key {
		t.Errorf("upstream Authorization = %q, want the provider key", got)
	}
	if r.Header.Get("X-Api-Key") != "" {
		t.Errorf("upstream got an x-api-key header: %q", r.Header.Get("X-Api-Key"))
	}
	noSecret(t, r, masterKey)
	return body
}

// recordedChat is the part of a recorded chat completion the tests
// compare.
type recordedChat struct {
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

// chatFixture decodes the recorded chat completion family/name, failing
// when it is missing or has no choices.
func chatFixture(t testing.TB, family, name string) recordedChat {
	t.Helper()
	var c recordedChat
	if err := json.Unmarshal(fixtures.Must(t, family, name), &c); err != nil {
		t.Fatalf("%s/%s: %v", family, name, err)
	}
	if len(c.Choices) == 0 {
		t.Fatalf("%s/%s has no choices", family, name)
	}
	return c
}

// recordedMessage is the part of a recorded Anthropic message the tests
// compare.
type recordedMessage struct {
	Text      string // text blocks joined
	Thinking  string
	ToolID    string
	ToolName  string
	ToolInput string // JSON
	Stop      string
	Input     int64 // input_tokens
	CacheRead int64
	CacheW    int64
	Output    int64
}

// anthropicFixture decodes the recorded Anthropic message name.
func anthropicFixture(t testing.TB, name string) recordedMessage {
	t.Helper()
	var m struct {
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			Input     int64 `json:"input_tokens"`
			CacheRead int64 `json:"cache_read_input_tokens"`
			CacheW    int64 `json:"cache_creation_input_tokens"`
			Output    int64 `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(fixtures.Must(t, "anthropic", name), &m); err != nil {
		t.Fatalf("anthropic/%s: %v", name, err)
	}
	f := recordedMessage{Stop: m.StopReason, Input: m.Usage.Input, CacheRead: m.Usage.CacheRead,
		CacheW: m.Usage.CacheW, Output: m.Usage.Output}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			f.Text += b.Text
		case "thinking":
			f.Thinking += b.Thinking
		case "tool_use":
			f.ToolID, f.ToolName, f.ToolInput = b.ID, b.Name, string(b.Input)
		}
	}
	return f
}

// slowUpstream is an OpenAI-compatible upstream that serves model
// slow-model, takes delay per answer (per event when streaming) and
// records how many requests it serves at once.
type slowUpstream struct {
	srv    *httptest.Server
	delay  time.Duration
	events int // stream events per answer
	// prompt is the prompt tokens a stream's usage reports; 0 means 4.
	prompt   int64
	inFlight atomic.Int64
	maxSeen  atomic.Int64
	served   atomic.Int64
}

// newSlowUpstream starts a slow upstream; it is closed at test end.
func newSlowUpstream(t testing.TB, delay time.Duration, events int) *slowUpstream {
	t.Helper()
	u := &slowUpstream{delay: delay, events: events}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// block is the provider block for this upstream.
func (u *slowUpstream) block(name string) string {
	return "provider " + name + " {\n type openai\n api_key sk-slow-test\n base_url " + u.srv.URL + "/v1\n}\n"
}

func (u *slowUpstream) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"slow-model","object":"model","owned_by":"test"}]}`)
		return
	}
	n := u.inFlight.Add(1)
	defer u.inFlight.Add(-1)
	for {
		m := u.maxSeen.Load()
		if n <= m || u.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	u.served.Add(1)
	body, _ := io.ReadAll(r.Body)
	if !requestsStream(body) {
		if !providers.SleepCtx(r.Context(), u.delay) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"slow-model","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"slow"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i := 0; i < u.events; i++ {
		_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"slow-model\","+
			"\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"},\"finish_reason\":null}]}\n\n", i)
		if rc.Flush() != nil || !providers.SleepCtx(r.Context(), u.delay) {
			return
		}
	}
	prompt := u.prompt
	if prompt == 0 {
		prompt = 4
	}
	_, _ = fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"slow-model","choices":[],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":6,"total_tokens":%d}}`+"\n\ndata: [DONE]\n\n", prompt, prompt+6)
	_ = rc.Flush()
}

// holdBackStream answers a chat request with a stream of model "slow":
// the first chunk (content "first") is written and flushed at once, the
// rest (content " second", then the extra events as written, then [DONE])
// once release is closed or 5 s have passed. It returns early when the
// client goes away. The caller sets Content-Type.
func holdBackStream(w http.ResponseWriter, r *http.Request, release <-chan struct{}, extra ...string) {
	rc := http.NewResponseController(w)
	_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"slow","choices":[{"index":0,"delta":{"role":"assistant","content":"first"},"finish_reason":null}]}`+"\n\n")
	_ = rc.Flush()
	select {
	case <-release:
	case <-time.After(5 * time.Second):
	case <-r.Context().Done():
		return
	}
	_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"slow","choices":[{"index":0,"delta":{"content":" second"},"finish_reason":"stop"}]}`+"\n\n")
	for _, ev := range extra {
		_, _ = io.WriteString(w, ev)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

// slowChat is a chat request for model on the slow upstream.
func slowChat(model string, stream bool) string {
	return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, model, stream)
}
