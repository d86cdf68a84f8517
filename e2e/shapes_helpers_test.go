package e2e

// Shared helpers of the API-shape end-to-end tests (files shapes_*_test.go):
// an Anthropic replay upstream, the official Anthropic SDK bound to the
// gateway, one gateway with every provider family, and small comparison
// helpers. The OpenAI-family upstreams are apiReplay (api_helpers_test.go).

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
)

// shpAnthropicKey is the provider key configured for the Anthropic
// upstream.
const shpAnthropicKey = "sk-ant-prov-SECRET-4444"

// shpClaude is the model the Anthropic replay lists.
const shpClaude = "claude-sonnet-4-20250514"

// shpAnthropicModels is the Anthropic upstream's model listing, in
// Anthropic's list format.
const shpAnthropicModels = `{"data":[` +
	`{"type":"model","id":"claude-sonnet-4-20250514","display_name":"Claude Sonnet 4","created_at":"2025-05-22T00:00:00Z"},` +
	`{"type":"model","id":"claude-3-5-haiku-20241022","display_name":"Claude Haiku 3.5","created_at":"2024-10-22T00:00:00Z"}],` +
	`"has_more":false,"first_id":"claude-sonnet-4-20250514","last_id":"claude-3-5-haiku-20241022"}`

// shpAnthropic is a fake Anthropic API: GET /v1/models in Anthropic's list
// format, POST /v1/messages replaying anthropic/<fixture> byte for byte
// (messages_stream.txt, with its event: lines, when the request streams),
// and POST /v1/messages/count_tokens answering {"input_tokens":N}. Every
// request is recorded by the embedded apiReplay.
type shpAnthropic struct {
	*apiReplay

	amu    sync.Mutex
	fix    string
	count  int64
	custom func(w http.ResponseWriter, r *http.Request, body []byte) // nil: replay
}

// shpNewAnthropic starts an Anthropic replay upstream.
func shpNewAnthropic(t testing.TB) *shpAnthropic {
	t.Helper()
	a := &shpAnthropic{apiReplay: apiNewReplay(t, "anthropic"), fix: "messages.json", count: 37}
	a.Handle("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(shpAnthropicModels))
	})
	a.Handle("/v1/messages/count_tokens", func(w http.ResponseWriter, _ *http.Request) {
		a.amu.Lock()
		n := a.count
		a.amu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"input_tokens":` + strconv.FormatInt(n, 10) + `}`))
	})
	a.Handle("/v1/messages", a.messages)
	return a
}

// Respond makes non-streamed /v1/messages answers replay fixture name.
func (a *shpAnthropic) Respond(name string) {
	a.amu.Lock()
	a.fix, a.custom = name, nil
	a.amu.Unlock()
}

// Script makes /v1/messages answer through h (nil: replay again).
func (a *shpAnthropic) Script(h func(w http.ResponseWriter, r *http.Request, body []byte)) {
	a.amu.Lock()
	a.custom = h
	a.amu.Unlock()
}

// LastMessages returns the last /v1/messages request, failing if none.
func (a *shpAnthropic) LastMessages(t testing.TB) apiRecorded {
	t.Helper()
	rs := a.Requests("/v1/messages")
	if len(rs) == 0 {
		t.Fatal("anthropic upstream received no /v1/messages request")
	}
	return rs[len(rs)-1]
}

func (a *shpAnthropic) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := shpReadBody(r)
	a.amu.Lock()
	fix, custom := a.fix, a.custom
	a.amu.Unlock()
	if custom != nil {
		custom(w, r, body)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	if req.Stream {
		fix = "messages_stream.txt"
	}
	b, err := os.ReadFile(filepath.Join(a.dir, fix))
	if err != nil {
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"replay: `+err.Error()+`"}}`, http.StatusInternalServerError)
		return
	}
	if req.Stream {
		apiWriteSSE(w, b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// shpReadBody reads a request body.
func shpReadBody(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// shpBody is b as a request body.
func shpBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// shpCheckAnthropicHeaders checks that the Anthropic upstream got the
// provider's key as x-api-key, the anthropic-version header and nothing
// of the client's credential.
func shpCheckAnthropicHeaders(t testing.TB, r apiRecorded) {
	t.Helper()
	if got := r.Header.Get("X-Api-Key"); got != shpAnthropicKey {
		t.Errorf("anthropic upstream x-api-key = %q, want the provider key", got)
	}
	if got := r.Header.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic upstream anthropic-version = %q, want 2023-06-01", got)
	}
	if got := r.Header.Get("Authorization"); got != "" {
		t.Errorf("anthropic upstream got an Authorization header: %q", got)
	}
	apiNoSecret(t, r, apiMasterKey)
}

// shpAnthropicSDK returns the official Anthropic client pointed at the
// gateway, retries off, with key sent as x-api-key.
func shpAnthropicSDK(t *testing.T, g *gateway, key string) anthropic.Client {
	t.Helper()
	for _, k := range []string{"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE",
		"ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_IDENTITY_TOKEN_FILE"} {
		t.Setenv(k, "")
	}
	return anthropic.NewClient(
		aoption.WithBaseURL(g.URL+"/"),
		aoption.WithAPIKey(key),
		aoption.WithMaxRetries(0),
		aoption.WithRequestTimeout(20*time.Second),
	)
}

// shpUps are the upstreams of the matrix gateway.
type shpUps struct {
	anth                 *shpAnthropic
	openai, groq, gemini *apiReplay
}

// shpFamily returns the OpenAI-family provider of that name, with its model and key
// (from apiFamilies).
func shpFamily(t testing.TB, name string) apiFamily {
	t.Helper()
	for _, f := range apiFamilies {
		if f.family == name {
			return f
		}
	}
	t.Fatalf("unknown family %q", name)
	return apiFamily{}
}

func (u shpUps) byFamily(name string) *apiReplay {
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

// shpMatrixGateway starts the four upstreams and a gateway with a master
// key and providers anth (type anthropic), openai, groq and gemini.
func shpMatrixGateway(t *testing.T) (*gateway, shpUps) {
	t.Helper()
	apiClearEnv(t)
	ups := shpUps{anth: shpNewAnthropic(t)}
	block := "master_key " + apiMasterKey + "\n" +
		apiProvider("anth", "anthropic", shpAnthropicKey, ups.anth.BaseURL())
	for _, f := range apiFamilies {
		u := apiNewReplay(t, f.family)
		switch f.family {
		case "openai":
			ups.openai = u
		case "groq":
			ups.groq = u
		case "gemini":
			ups.gemini = u
		}
		block += apiProvider(f.family, f.family, f.key, u.BaseURL())
	}
	return startGateway(t, block), ups
}

// shpJSONEqual reports whether two JSON texts are equal as values.
func shpJSONEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// shpFixtureJSON decodes a fixture into a generic map.
func shpFixtureJSON(t testing.TB, family, name string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, family, name), &m); err != nil {
		t.Fatalf("%s/%s: %v", family, name, err)
	}
	return m
}

// shpAnthFixture is the part of a recorded Anthropic message the tests
// compare.
type shpAnthFixture struct {
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

func shpParseAnthFixture(t testing.TB, name string) shpAnthFixture {
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
	if err := json.Unmarshal(fixture(t, "anthropic", name), &m); err != nil {
		t.Fatalf("anthropic/%s: %v", name, err)
	}
	f := shpAnthFixture{Stop: m.StopReason, Input: m.Usage.Input, CacheRead: m.Usage.CacheRead,
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

// shpContains fails unless s contains every one of subs.
func shpContains(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q: %s", what, sub, s)
		}
	}
}

// shpGet returns the value at a dotted path of a decoded JSON value
// ("messages.0.content"), nil when absent.
func shpGet(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// shpUnhandle removes an override set with (*apiReplay).Handle, so path
// replays fixtures again.
func shpUnhandle(u *apiReplay, path string) {
	u.mu.Lock()
	delete(u.overrides, path)
	u.mu.Unlock()
}
