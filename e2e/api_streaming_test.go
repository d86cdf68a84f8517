package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// usageUpstream answers streamed chat completions like OpenAI: content
// chunks, each ending with an "obfuscation" padding member and, only when
// the request asked with stream_options.include_usage, with "usage":null
// before it, then a final usage-only chunk with "choices":[].
func usageUpstream(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	usageNull := ""
	if req.StreamOptions.IncludeUsage {
		usageNull = `,"usage":null`
	}
	chunk := func(delta, finish string) string {
		return `data: {"id":"chatcmpl-u1","object":"chat.completion.chunk","created":1,"model":"u-model","choices":[{"index":0,"delta":` +
			delta + `,"logprobs":null,"finish_reason":` + finish + `}]` + usageNull + `,"obfuscation":"q9Z"}` + "\n\n"
	}
	events := []string{
		chunk(`{"role":"assistant","content":""}`, "null"),
		chunk(`{"content":"Hello"}`, "null"),
		chunk(`{"content":" there"}`, "null"),
		chunk(`{}`, `"stop"`),
	}
	if req.StreamOptions.IncludeUsage {
		events = append(events, usageChunk)
	}
	events = append(events, "data: [DONE]\n\n")
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, ev := range events {
		_, _ = io.WriteString(w, ev)
		_ = rc.Flush()
	}
}

const usageChunk = `data: {"id":"chatcmpl-u1","object":"chat.completion.chunk","created":1,"model":"u-model","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}}` + "\n\n"

// TestAPIStreamUsageChunk checks the usage chunk handling: the gateway asks
// the upstream for usage on every stream, but only a client that asked
// itself gets the usage-only chunk.
func TestAPIStreamUsageChunk(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", usageUpstream)
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models u-model", "models_mode allowlist"))

	raw := []struct {
		name          string
		streamOptions string // JSON fragment added to the request, "" for none
		wantUsage     bool
	}{
		{"client did not ask", "", false},
		{"client asked include_usage false", `,"stream_options":{"include_usage":false}`, false},
		{"client asked include_usage true", `,"stream_options":{"include_usage":true}`, true},
	}
	for _, c := range raw {
		t.Run("raw/"+c.name, func(t *testing.T) {
			u.Reset()
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"u-model","stream":true,"messages":[{"role":"user","content":"hi"}]`+c.streamOptions+`}`)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			so, _ := u.LastChat(t).JSON(t)["stream_options"].(map[string]any)
			if so["include_usage"] != true {
				t.Errorf("upstream stream_options = %v, want include_usage true", so)
			}
			exp := summarizeStream(t, res.Body)
			if exp.Content != "Hello there" {
				t.Errorf("content through the gateway = %q", exp.Content)
			}
			if !strings.HasSuffix(string(res.Body), "data: [DONE]\n\n") {
				t.Errorf("stream does not end with [DONE]: %q", res.Body)
			}
			hasUsage := strings.Contains(string(res.Body), `"choices":[]`)
			if hasUsage != c.wantUsage {
				t.Errorf("client saw the usage-only chunk: %v, want %v\n%s", hasUsage, c.wantUsage, res.Body)
			}
			if c.wantUsage && !strings.Contains(string(res.Body), usageChunk) {
				t.Errorf("usage chunk not passed through byte for byte:\n%s", res.Body)
			}
			// Chunks come as the upstream sends them to a client that did
			// not ask: without the "usage":null the gateway's asking added.
			if gotNull := strings.Contains(string(res.Body), `"usage":null`); gotNull != c.wantUsage {
				t.Errorf(`client saw "usage":null: %v, want %v`+"\n%s", gotNull, c.wantUsage, res.Body)
			}
			if exp.EmptyChoiceChunk != map[bool]int{true: 1, false: 0}[c.wantUsage] {
				t.Errorf("client saw %d empty-choices chunks", exp.EmptyChoiceChunk)
			}
		})
	}
	// The audit records each body as the client sent it: the member the
	// gateway added for the upstream is not in it.
	entries, _ := auditRecords(t)
	recorded := map[string]bool{}
	for _, es := range entries {
		for _, e := range es {
			recorded[string(e.Data.RequestBody)] = true
		}
	}
	for _, c := range raw {
		sent := `{"model":"u-model","stream":true,"messages":[{"role":"user","content":"hi"}]` + c.streamOptions + `}`
		if !recorded[sent] {
			t.Errorf("no entry recorded the body %s; recorded %v", sent, recorded)
		}
	}

	client := openaiClient(g, "unused")
	for _, c := range []struct {
		name                  string
		ask                   bool
		prompt, compl, totals int64
	}{
		{"sdk/not asking", false, 0, 0, 0},
		{"sdk/asking", true, 11, 3, 14},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openai.ChatCompletionNewParams{
				Model:    "u-model",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			}
			if c.ask {
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			stream := client.Chat.Completions.NewStreaming(context.Background(), p)
			var acc openai.ChatCompletionAccumulator
			emptyChoices := 0
			for stream.Next() {
				ch := stream.Current()
				if len(ch.Choices) == 0 {
					emptyChoices++
				}
				if !acc.AddChunk(ch) {
					t.Fatal("accumulator refused a chunk")
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			if acc.Choices[0].Message.Content != "Hello there" {
				t.Errorf("content = %q", acc.Choices[0].Message.Content)
			}
			if acc.Usage.PromptTokens != c.prompt || acc.Usage.CompletionTokens != c.compl || acc.Usage.TotalTokens != c.totals {
				t.Errorf("accumulated usage = %d/%d/%d, want %d/%d/%d", acc.Usage.PromptTokens,
					acc.Usage.CompletionTokens, acc.Usage.TotalTokens, c.prompt, c.compl, c.totals)
			}
			if c.ask != (emptyChoices == 1) {
				t.Errorf("SDK saw %d empty-choices chunks (asked: %v)", emptyChoices, c.ask)
			}
		})
	}
}

// TestAPIStreamUsageChunkMock does the same against the built-in mock
// provider, which also emits the usage chunk only when asked.
func TestAPIStreamUsageChunkMock(t *testing.T) {
	g := startMockGateway(t)
	for _, c := range []struct {
		name, opts string
		want       bool
	}{
		{"not asking", "", false},
		{"asking", `,"stream_options":{"include_usage":true}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"ping pong"}]`+c.opts+`}`, bearer(masterKey)...)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			exp := summarizeStream(t, res.Body)
			if exp.Content != "Echo: ping pong" {
				t.Errorf("content = %q", exp.Content)
			}
			if got := exp.EmptyChoiceChunk == 1 && exp.Total > 0; got != c.want {
				t.Errorf("usage chunk seen: %v, want %v\n%s", got, c.want, res.Body)
			}
		})
	}
}

// TestAPIStreamIsIncremental: the client must get the first event while
// the upstream is still holding back the rest of the stream.
func TestAPIStreamIsIncremental(t *testing.T) {
	clearEnv(t)
	var mu sync.Mutex
	var release chan struct{}
	var contentType string

	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ct, rel := contentType, release
		mu.Unlock()
		w.Header().Set("Content-Type", ct)
		holdBackStream(w, r, rel)
	})
	g := startGateway(t, providerBlock("slow", "openai", "sk-slow", u.BaseURL(), "models slow", "models_mode allowlist"))

	for _, c := range []struct {
		contentType string
		bug         string
	}{
		{"text/event-stream", ""},
		{"text/event-stream; charset=utf-8", ""},
		{"Text/Event-Stream", ""},
	} {
		t.Run(c.contentType, func(t *testing.T) {
			if c.bug != "" {
				t.Skip("BUG: " + c.bug)
			}
			rel := make(chan struct{})
			mu.Lock()
			release, contentType = rel, c.contentType
			mu.Unlock()
			var once sync.Once
			releaseUpstream := func() { once.Do(func() { close(rel) }) }
			defer releaseUpstream()

			type result struct {
				first string
				rest  string
				err   error
			}
			firstCh := make(chan result, 1)
			doneCh := make(chan result, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
					strings.NewReader(`{"model":"slow","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
				if err != nil {
					firstCh <- result{err: err}
					return
				}
				defer resp.Body.Close()
				if resp.StatusCode != 200 {
					b, _ := io.ReadAll(resp.Body)
					firstCh <- result{err: fmt.Errorf("status %d: %s", resp.StatusCode, b)}
					return
				}
				br := bufio.NewReader(resp.Body)
				ev, err := readEvent(br)
				firstCh <- result{first: ev, err: err}
				if err != nil {
					return
				}
				rest, err := io.ReadAll(br)
				doneCh <- result{rest: string(rest), err: err}
			}()

			select {
			case r := <-firstCh:
				if r.err != nil {
					t.Fatalf("reading the first event: %v", r.err)
				}
				if !strings.Contains(r.first, `"content":"first"`) {
					t.Fatalf("first event = %q", r.first)
				}
			case <-time.After(3 * time.Second):
				releaseUpstream()
				t.Fatal("the first event did not reach the client while the upstream held back the rest: the stream is buffered")
			}
			releaseUpstream()
			select {
			case r := <-doneCh:
				if r.err != nil {
					t.Fatalf("reading the rest: %v", r.err)
				}
				if !strings.Contains(r.rest, `" second"`) || !strings.HasSuffix(r.rest, "data: [DONE]\n\n") {
					t.Fatalf("rest of the stream = %q", r.rest)
				}
			case <-time.After(8 * time.Second):
				t.Fatal("the rest of the stream never arrived")
			}
		})
	}
}

// TestAPIClientDisconnectCancelsUpstream: when the client goes away, the
// upstream request's context is cancelled.
func TestAPIClientDisconnectCancelsUpstream(t *testing.T) {
	clearEnv(t)
	cancelled := make(chan string, 4)
	arrived := make(chan struct{}, 4)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"hold","choices":[{"index":0,"delta":{"role":"assistant","content":"one"},"finish_reason":null}]}`+"\n\n")
			_ = http.NewResponseController(w).Flush()
		}
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- string(body)
		case <-time.After(10 * time.Second):
		}
	})
	g := startGateway(t, providerBlock("hold", "openai", "sk-hold", u.BaseURL(), "models hold", "models_mode allowlist"))

	cases := []struct {
		name   string
		stream bool
		leave  func(cancel context.CancelFunc, body io.ReadCloser)
	}{
		{"stream: body closed after the first event", true, func(_ context.CancelFunc, body io.ReadCloser) { body.Close() }},
		{"stream: request context cancelled", true, func(cancel context.CancelFunc, _ io.ReadCloser) { cancel() }},
		{"non-stream: cancelled while waiting for the answer", false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for len(cancelled) > 0 {
				<-cancelled
			}
			for len(arrived) > 0 {
				<-arrived
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := fmt.Sprintf(`{"model":"hold","stream":%v,"messages":[{"role":"user","content":%q}]}`, c.stream, c.name)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			if c.stream {
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != 200 {
					b, _ := io.ReadAll(resp.Body)
					t.Fatalf("status %d: %s", resp.StatusCode, b)
				}
				ev, err := readEvent(bufio.NewReader(resp.Body))
				if err != nil || !strings.Contains(ev, `"content":"one"`) {
					t.Fatalf("first event %q, %v", ev, err)
				}
				c.leave(cancel, resp.Body)
				defer resp.Body.Close()
			} else {
				errCh := make(chan error, 1)
				go func() {
					resp, err := client.Do(req)
					if err == nil {
						resp.Body.Close()
					}
					errCh <- err
				}()
				select {
				case <-arrived:
				case <-time.After(5 * time.Second):
					t.Fatal("the request never reached the upstream")
				}
				cancel()
				if err := <-errCh; err == nil {
					t.Fatal("request succeeded although cancelled")
				}
			}
			select {
			case got := <-cancelled:
				if !strings.Contains(got, c.name) {
					t.Fatalf("a different upstream request was cancelled: %s", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the upstream request was not cancelled within 5s of the client leaving")
			}
		})
	}
}
