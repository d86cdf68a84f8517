package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// seenRequest is what a fake upstream was sent.
type seenRequest struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         string
}

// recordingUpstream answers every request with answer and records it.
type recordingUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

func newRecordingUpstream(t *testing.T, answer http.HandlerFunc) *recordingUpstream {
	u := &recordingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.seen = append(u.seen, seenRequest{r.Method, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.Header.Clone(), string(b)})
		u.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// last returns the last request seen, failing when there was none.
func (u *recordingUpstream) last(t *testing.T) seenRequest {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.seen) == 0 {
		t.Fatal("the upstream was not called")
	}
	return u.seen[len(u.seen)-1]
}

func (u *recordingUpstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

const chatAnswer = `{"id":"chatcmpl-pt","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,` +
	`"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`

// passthroughUpstream answers JSON with usage, an event stream on
// /v1/stream and a voice listing on /v2/voices.
func passthroughUpstream(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/stream"):
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"n\":%d}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	case r.URL.Path == "/v2/voices":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"voices":[{"voice_id":"v1d","name":"Rachel"}]}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		_, _ = io.WriteString(w, chatAnswer)
	}
}

// TestPassthrough: /p/<provider>/<path> relays enabled providers only,
// with the provider's key instead of the client's, without hop-by-hop or
// gateway headers, the query and body unchanged, a leading v1/ dropped
// where the API root ends in /v1 (404 where it does not), streams passed
// as they come, paths that would leave the API root refused, every call
// audited with its usage and rate-limited by user path and provider.
func TestPassthrough(t *testing.T) {
	clearEnv(t)
	up := newRecordingUpstream(t, passthroughUpstream)
	voice := newRecordingUpstream(t, passthroughUpstream)
	other := newRecordingUpstream(t, passthroughUpstream)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "oai,elevenlabs")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_OAI", "rpm=6")
	g := startGateway(t, "master_key "+masterKey+"\n"+
		providerBlock("oai", "openai", "sk-pt-upstream", up.URL+"/v1", "models gpt-4o-mini", "models_mode allowlist")+
		providerBlock("voice", "elevenlabs", "xi-pt-upstream", voice.URL, "models eleven_flash_v2_5", "models_mode allowlist")+
		providerBlock("closed", "openai", "sk-closed", other.URL+"/v1", "models gpt-4o-mini", "models_mode allowlist"))

	// Enabled by instance name; the query, body and answer pass unchanged.
	body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],  "extra":true}`
	res := request(t, "POST", g.URL+"/p/oai/v1/chat/completions?trace=1&x=%2F", body,
		"Authorization", "Bearer "+masterKey, "X-Api-Key", masterKey, "X-Goog-Api-Key", masterKey, "Xi-Api-Key", "client-voice-key", "Cookie", "s=1",
		"Connection", "X-Hop", "X-Hop", "drop me", "Keep-Alive", "timeout=5", "X-Keep", "kept",
		userPathHeader, "/team", "X-Request-Id", "pt-chat-1")
	if res.Status != 200 || string(res.Body) != chatAnswer || res.Header.Get("X-Upstream") != "yes" {
		t.Fatalf("passthrough answer %d %s", res.Status, res.Body)
	}
	s := up.last(t)
	if s.Method != "POST" || s.Path != "/v1/chat/completions" || s.Query != "trace=1&x=%2F" || s.Body != body {
		t.Errorf("upstream saw %s %s ? %s: %s", s.Method, s.Path, s.Query, s.Body)
	}
	if s.Header.Get("Authorization") != "Bearer sk-pt-upstream" || s.Header.Get("X-Keep") != "kept" {
		t.Errorf("upstream headers %v", s.Header)
	}
	for _, h := range []string{"X-Api-Key", "Xi-Api-Key", "X-Goog-Api-Key", "Cookie", "X-Hop", "Keep-Alive", userPathHeader} {
		if v := s.Header.Get(h); v != "" {
			t.Errorf("header %s reached the upstream: %q", h, v)
		}
	}
	if strings.Contains(fmt.Sprint(s.Header), masterKey) {
		t.Error("the gateway key reached the upstream")
	}

	// Without the v1/ alias the same path is reached.
	request(t, "GET", g.URL+"/p/oai/models", "", bearer(masterKey)...)
	if s := up.last(t); s.Method != "GET" || s.Path != "/v1/models" {
		t.Errorf("upstream saw %s %s", s.Method, s.Path)
	}

	// A stream passes event by event, bytes unchanged.
	req, _ := http.NewRequest("POST", g.URL+"/p/oai/v1/stream", strings.NewReader(`{"stream":true}`))
	req.Header.Set("Authorization", "Bearer "+masterKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	var got strings.Builder
	for {
		line, err := br.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" || got.String() != "data: {\"n\":0}\n\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\n" {
		t.Errorf("stream %s: %q", resp.Header.Get("Content-Type"), got.String())
	}

	// Not enabled, unknown: 404.
	request(t, "GET", g.URL+"/p/closed/v1/models", "", bearer(masterKey)...).
		ExpectErr(t, http.StatusNotFound, "not_found_error", "passthrough_not_enabled")
	request(t, "GET", g.URL+"/p/nobody/v1/models", "", bearer(masterKey)...).
		ExpectErr(t, http.StatusNotFound, "not_found_error", "passthrough_not_enabled")
	if other.count() != 0 {
		t.Error("a provider not enabled was called")
	}
	// Gateway auth applies.
	if res := request(t, "GET", g.URL+"/p/oai/v1/models", ""); res.Status != http.StatusUnauthorized {
		t.Errorf("without a key: %d", res.Status)
	}

	// The voice provider, enabled by type: no /v1 root, so v1/ is 404;
	// v2/voices works with its own credential header.
	n := voice.count()
	request(t, "GET", g.URL+"/p/voice/v1/voices", "", bearer(masterKey)...).
		ExpectErr(t, http.StatusNotFound, "invalid_request_error", "unknown_route")
	if voice.count() != n {
		t.Error("the voice provider was called for a v1 path")
	}
	res = request(t, "GET", g.URL+"/p/elevenlabs/v2/voices?page_size=5", "", bearer(masterKey)...)
	if res.Status != 200 || !strings.Contains(string(res.Body), "Rachel") {
		t.Fatalf("voices %d %s", res.Status, res.Body)
	}
	if s := voice.last(t); s.Path != "/v2/voices" || s.Query != "page_size=5" || s.Header.Get("Xi-Api-Key") != "xi-pt-upstream" ||
		s.Header.Get("Authorization") != "" {
		t.Errorf("voice upstream saw %s ? %s %v", s.Path, s.Query, s.Header)
	}

	// Paths that would leave the API root never reach an upstream.
	n = up.count()
	for _, p := range []string{"/p/oai/../../admin/auth-keys", "/p/oai/v1/%2e%2e/%2e%2e/secret", "/p/oai/a%2f..%2f..%2fx",
		"/p/oai/a%5c..%5cx", "/p/oai/v1/./models", "/p/oai/%2E%2E"} {
		res := rawRequest(t, g, "GET", p)
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), `"invalid_path"`) {
			t.Errorf("%s: %d %s", p, res.Status, res.Body)
		}
	}
	if up.count() != n {
		for _, s := range up.seen[n:] {
			t.Errorf("traversal reached the upstream: %s (raw %s)", s.Path, s.RawPath)
		}
	}

	// Audited with the provider, model and usage of the JSON answer.
	entries, usage := auditRecords(t)
	e := one(t, entries, "pt-chat-1")
	if e.Path != "/p/oai/v1/chat/completions" || e.ProviderName != "oai" || e.ResolvedModel != "gpt-4o-mini" ||
		e.UserPath != "/team" || e.StatusCode != 200 {
		t.Errorf("entry %s %s %s %s %d", e.Path, e.ProviderName, e.ResolvedModel, e.UserPath, e.StatusCode)
	}
	checkUsage(t, e, usage[e.ID], "openai", 12, 3)

	// The provider rule (6 a minute) counts passthrough calls: the calls
	// that reached it so far (chat, models, stream) plus three more fill
	// it, and the next is refused before the upstream.
	for range 3 {
		if res := request(t, "GET", g.URL+"/p/oai/models", "", bearer(masterKey)...); res.Status != 200 {
			t.Fatalf("under the limit: %d %s", res.Status, res.Body)
		}
	}
	n = up.count()
	res = request(t, "GET", g.URL+"/p/oai/models", "", bearer(masterKey)...)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || up.count() != n {
		t.Errorf("over the provider limit: %d %s", res.Status, res.Body)
	}
}

// rawRequest sends a request whose path is written exactly as given,
// without the client cleaning or re-escaping it.
func rawRequest(t *testing.T, g *gateway, method, path string) response {
	t.Helper()
	req, err := http.NewRequest(method, g.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = "//" + req.URL.Host + path
	req.Header.Set("Authorization", "Bearer "+masterKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}
