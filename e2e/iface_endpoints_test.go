package e2e

// Passthrough, realtime and batch endpoints as a client of the public HTTP
// API sees them.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openai/openai-go/v3"
)

// TestIfacePassthroughMethodsAndStatus: passthrough relays any method
// with its body byte for byte, keeps the client's credentials (whatever
// header carries them) and hop-by-hop headers from the upstream, passes
// the upstream's error status and body unchanged, and takes its enabled
// providers from YAML passthrough.enabled_providers.
func TestIfacePassthroughMethodsAndStatus(t *testing.T) {
	clearEnv(t)
	up := newRecordingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"error":{"message":"upstream says no"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0xff, 0, 'o', 'k'})
	})
	cfg := writeFile(t, "pt.yaml", "passthrough:\n  enabled_providers: [oai]\n")
	g := startGateway(t, "master_key "+masterKey+"\nconfig_file "+cfg+"\n"+
		providerBlock("oai", "openai", "sk-pt", up.URL+"/v1", "models gpt-4o-mini", "models_mode allowlist"))
	binary := string([]byte{0, 1, 2, 0xff, 0xfe, '\n', '\r'})
	for _, m := range []string{"PUT", "PATCH", "DELETE", "POST"} {
		res := request(t, m, g.URL+"/p/oai/v1/things/1", binary, append(bearer(masterKey), "Content-Type", "application/octet-stream")...)
		if res.Status != 200 || string(res.Body) != "\xff\x00ok" {
			t.Errorf("%s: %d %q", m, res.Status, res.Body)
		}
		if s := up.last(t); s.Method != m || s.Path != "/v1/things/1" || s.Body != binary {
			t.Errorf("%s: upstream saw %s %s %q", m, s.Method, s.Path, s.Body)
		}
	}
	// Credentials of every form the client may send stay at the gateway.
	request(t, "GET", g.URL+"/p/oai/v1/things/2", "", "X-Api-Key", masterKey, "Proxy-Authorization", "Basic dTpw",
		"Api-Key", masterKey, "Proxy-Connection", "keep-alive", "Te", "trailers", "Upgrade", "h2c", "X-Plain", "kept")
	s := up.last(t)
	for _, h := range []string{"Proxy-Authorization", "Api-Key", "X-Api-Key", "Proxy-Connection", "Te", "Upgrade"} {
		if v := s.Header.Get(h); v != "" {
			t.Errorf("header %s reached the upstream: %q", h, v)
		}
	}
	if s.Header.Get("Authorization") != "Bearer sk-pt" || s.Header.Get("X-Plain") != "kept" {
		t.Errorf("upstream headers %v", s.Header)
	}
	res := request(t, "GET", g.URL+"/p/openai/v1/missing", "", bearer(masterKey)...)
	if res.Status != http.StatusUnprocessableEntity || string(res.Body) != `{"error":{"message":"upstream says no"}}` {
		t.Errorf("upstream 422 by provider type: %d %s", res.Status, res.Body)
	}
}

// realtimeSession dials a realtime session on the mock provider and
// reads its session.created.
func realtimeSession(t *testing.T, g *gateway) *websocket.Conn {
	t.Helper()
	c, resp, err := dialRealtime(t, g, "mock-chat", "")
	if err != nil {
		t.Fatalf("dial: %v %v", err, resp)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	if typ, _ := readWSEvent(t, c); typ != "session.created" {
		t.Fatalf("first event %q", typ)
	}
	return c
}

// closeCodeWithin reads from c until the session ends, keeping it busy
// with a message every 50 ms when busy is set, and returns the close code.
func closeCodeWithin(t *testing.T, c *websocket.Conn, busy bool) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if busy {
		go func() {
			for ctx.Err() == nil {
				if c.Write(ctx, websocket.MessageText, []byte(`{"type":"input_audio_buffer.clear"}`)) != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			t.Fatal("the session was never ended")
		}
		return websocket.CloseStatus(err)
	}
}

// TestIfaceRealtimeSessionBounds: realtime.idle_timeout ends a silent
// session with close code 1000, realtime.max_duration a busy one with
// 1008; each ended session leaves its audit entry.
func TestIfaceRealtimeSessionBounds(t *testing.T) {
	clearEnv(t)
	cfg := writeFile(t, "rt.yaml", "realtime:\n  idle_timeout: 1s\n")
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"))
	waitListed(t, g, masterKey, "mock-chat")
	if code := closeCodeWithin(t, realtimeSession(t, g), false); code != websocket.StatusNormalClosure {
		t.Errorf("idle session closed with %v, want 1000", code)
	}

	cfg = writeFile(t, "rt.yaml", "realtime:\n  idle_timeout: 1m\n  max_duration: 1s\n")
	g = restartGateway(t, mockBlock("config_file "+cfg+"\n"))
	waitListed(t, g, masterKey, "mock-chat")
	if code := closeCodeWithin(t, realtimeSession(t, g), true); code != websocket.StatusPolicyViolation {
		t.Errorf("session past max_duration closed with %v, want 1008", code)
	}
	poll(t, 5*time.Second, "an audit entry for the ended session", func() bool {
		return adminCall(t, g, "GET", "/admin/audit/log?search=/v1/realtime", "").JSON(t)["total"] == 1.0
	})
}

// TestIfaceBatchLifecycle: a batch on the mock provider goes through the
// OpenAI shapes (file upload and read, create, list, get), finishes with
// its usage recorded per line before anyone fetches its results, and
// stays invisible to another key; unknown ids are 404 not_found_error.
func TestIfaceBatchLifecycle(t *testing.T) {
	g := startMockGateway(t)
	waitListed(t, g, masterKey, "mock-chat")
	ctx := context.Background()
	c := openaiClient(g, masterKey)
	lines := `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-chat","messages":[{"role":"user","content":"one"}]}}
{"custom_id":"b","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-chat","messages":[{"role":"user","content":"two"}]}}
{"custom_id":"c","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-chat","messages":[{"role":"user","content":"three"}]}}
`
	f, err := c.Files.New(ctx, openai.FileNewParams{File: openai.File(bytes.NewReader([]byte(lines)), "in.jsonl", "application/jsonl"),
		Purpose: openai.FilePurposeBatch})
	if err != nil {
		t.Fatal(err)
	}
	if f.Purpose != openai.FileObjectPurposeBatch || f.Bytes != int64(len(lines)) || !strings.HasPrefix(f.ID, "file-") {
		t.Fatalf("file %+v", f)
	}
	content, err := c.Files.Content(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(content.Body)
	content.Body.Close()
	if string(got) != lines {
		t.Fatalf("file content %q", got)
	}
	b, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.ID, "batch_") || b.InputFileID != f.ID {
		t.Fatalf("batch %+v", b)
	}
	var done *openai.Batch
	poll(t, 10*time.Second, "the batch completed", func() bool {
		if done, err = c.Batches.Get(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		return done.Status == openai.BatchStatusCompleted
	})
	if done.RequestCounts.Total != 3 || done.RequestCounts.Completed != 3 || done.OutputFileID == "" || done.CompletedAt == 0 {
		t.Fatalf("finished batch %+v", done)
	}
	// Usage per line, recorded although nobody fetched the output.
	if m := adminCall(t, g, "GET", "/admin/usage/summary", "").JSON(t); m["total_requests"] != 3.0 {
		t.Errorf("usage after the batch: %v", m)
	}
	page, err := c.Batches.List(ctx, openai.BatchListParams{})
	if err != nil || len(page.Data) != 1 || page.Data[0].ID != b.ID {
		t.Fatalf("list: %v %+v", err, page)
	}

	other := createKey(t, g, `{"name":"other","user_path":"/other"}`)
	oc := openaiClient(g, other.Secret)
	var apiErr *openai.Error
	if _, err := oc.Batches.Get(ctx, b.ID); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("another key reads the batch: %v", err)
	}
	if _, err := oc.Files.Get(ctx, f.ID); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("another key reads the file: %v", err)
	}
	if page, err := oc.Batches.List(ctx, openai.BatchListParams{}); err != nil || len(page.Data) != 0 {
		t.Errorf("another key lists %v %+v", err, page)
	}
	for _, p := range []string{"/v1/batches/batch_nope", "/v1/files/file-nope", "/v1/files/file-nope/content"} {
		if res := request(t, "GET", g.URL+p, "", bearer(masterKey)...); res.Status != 404 || res.Err(t).Type != "not_found_error" {
			t.Errorf("%s: %d %s", p, res.Status, res.Body)
		}
	}
	request(t, "POST", g.URL+"/v1/batches/batch_nope/cancel", "", bearer(masterKey)...).ExpectErr(t, 404, "not_found_error", "not_found")
}

// TestIfaceVoiceProviderFromEnv: ELEVENLABS_API_KEY registers the voice
// provider (named elevenlabs, its key sent as xi-api-key), which serves
// speech and transcription and lists the transcription models the gateway
// adds.
func TestIfaceVoiceProviderFromEnv(t *testing.T) {
	clearEnv(t)
	up := newFakeVoiceProvider(t, "xi-env-key")
	t.Setenv("ELEVENLABS_API_KEY", "xi-env-key")
	t.Setenv("ELEVENLABS_BASE_URL", up.URL)
	g := startGateway(t, "master_key "+masterKey+"\n")
	waitListed(t, g, masterKey, "scribe_v2", "scribe_v1", "eleven_flash_v2_5")
	res := request(t, "POST", g.URL+"/v1/audio/speech",
		`{"model":"elevenlabs/eleven_flash_v2_5","input":"hi","voice":"JBFqnCBsd6RMkjVDRZzb","response_format":"wav"}`,
		append(bearer(masterKey), "Content-Type", "application/json")...)
	if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "elevenlabs" {
		t.Fatalf("speech: %d %s %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
	}
	if c := up.last(t); c.voice != "JBFqnCBsd6RMkjVDRZzb" || c.outputFormat != "wav_44100" {
		t.Errorf("upstream call %+v", c)
	}
	oc := openaiClient(g, masterKey)
	tr, err := oc.Audio.Transcriptions.New(context.Background(), openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader([]byte("RIFF....WAVE")), "a.wav", "audio/wav"), Model: "scribe_v2"})
	if err != nil || tr.Text == "" {
		t.Fatalf("transcription: %v %+v", err, tr)
	}
}

// TestIfaceRealtimeUnderBudget: a realtime session's usage (from its
// response.done events) is spend; once the caller's budget is spent, the
// next session is refused before any upgrade with 429 budget_exceeded and
// Retry-After.
func TestIfaceRealtimeUnderBudget(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_BUDGET_RT", "daily=0.0000001")
	up := newFakeRealtime(t)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1",
		"models gpt-realtime", "models_mode allowlist")))
	c, resp, err := dialRealtime(t, g, "oa/gpt-realtime", "/rt/a")
	if err != nil {
		t.Fatalf("dial: %v %v", err, resp)
	}
	readWSEvent(t, c)
	if err := c.Write(context.Background(), websocket.MessageText, []byte(`{"type":"response.create"}`)); err != nil {
		t.Fatal(err)
	}
	if typ, _ := readWSEvent(t, c); typ != "response.done" {
		t.Fatalf("relayed %s", typ)
	}
	if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}
	poll(t, 5*time.Second, "the session's cost is spend", func() bool {
		for _, b := range adminCall(t, g, "GET", "/admin/budgets", "").JSON(t)["budgets"].([]any) {
			if m := b.(map[string]any); m["user_path"] == "/rt" && m["spent"].(float64) > 0 {
				return true
			}
		}
		return false
	})
	res := request(t, "GET", g.URL+"/v1/realtime?model=oa/gpt-realtime", "", append(bearer(masterKey), userPathHeader, "/rt/b",
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")...)
	res.ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	if res.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// wsHandshake sends a WebSocket upgrade request for a realtime session
// as userPath and returns the answer (an error when not upgraded).
func wsHandshake(t *testing.T, g *gateway, model, userPath string) response {
	t.Helper()
	return request(t, "GET", g.URL+"/v1/realtime?model="+model, "", append(bearer(masterKey), userPathHeader, userPath,
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")...)
}

// TestIfaceRealtimeModelAccess: a realtime session is routed as every
// model request is: a model an access policy disables, or keeps from the
// caller's path, is refused before any upgrade with 403
// model_access_denied, and a virtual model's name opens a session on its
// target.
func TestIfaceRealtimeModelAccess(t *testing.T) {
	clearEnv(t)
	cfg := writeFile(t, "rt.yaml", `virtual_models:
  - source: demo/mock-reasoner
    enabled: false
  - source: rt-alias
    user_paths: [/team]
    targets: [{provider: demo, model: mock-chat}]
`)
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"))
	waitListed(t, g, masterKey, "mock-chat")
	for _, m := range []string{"mock-reasoner", "demo/mock-reasoner"} {
		wsHandshake(t, g, m, "/team").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
	}
	wsHandshake(t, g, "rt-alias", "/other").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")

	h := http.Header{"Authorization": {"Bearer " + masterKey}, userPathHeader: {"/team"}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.URL, "http")+"/v1/realtime?model=rt-alias",
		&websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("alias session: %v %v", err, resp)
	}
	defer c.CloseNow()
	if typ, msg := readWSEvent(t, c); typ != "session.created" || !strings.Contains(string(msg), `"model":"mock-chat"`) {
		t.Fatalf("alias session opened with %s", msg)
	}
}

// TestIfaceBatchLinesFollowModelAccess: batch lines are routed as model
// requests are: a line for a model an access policy disables is refused
// on its own (403 model_access_denied, in the error file), and a line
// naming a virtual model runs on its target.
func TestIfaceBatchLinesFollowModelAccess(t *testing.T) {
	clearEnv(t)
	cfg := writeFile(t, "batch.yaml", `virtual_models:
  - source: demo/mock-reasoner
    enabled: false
  - source: batch-alias
    targets: [{provider: demo, model: mock-chat}]
`)
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"))
	waitListed(t, g, masterKey, "mock-chat", "batch-alias")
	ctx := context.Background()
	c := openaiClient(g, masterKey)
	lines := `{"custom_id":"ok","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-chat","messages":[{"role":"user","content":"one"}]}}
{"custom_id":"denied","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-reasoner","messages":[{"role":"user","content":"two"}]}}
{"custom_id":"alias","method":"POST","url":"/v1/chat/completions","body":{"model":"batch-alias","messages":[{"role":"user","content":"three"}]}}
`
	f, err := c.Files.New(ctx, openai.FileNewParams{File: openai.File(bytes.NewReader([]byte(lines)), "in.jsonl", "application/jsonl"),
		Purpose: openai.FilePurposeBatch})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(err)
	}
	var done *openai.Batch
	poll(t, 5*time.Second, "the batch completes", func() bool {
		done, err = c.Batches.Get(ctx, b.ID)
		return err == nil && done.Status == openai.BatchStatusCompleted
	})
	if done.RequestCounts.Completed != 2 || done.RequestCounts.Failed != 1 || done.ErrorFileID == "" {
		t.Fatalf("counts %+v, error file %q", done.RequestCounts, done.ErrorFileID)
	}
	read := func(id string) string {
		resp, err := c.Files.Content(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if errs := read(done.ErrorFileID); !strings.Contains(errs, `"custom_id":"denied"`) || !strings.Contains(errs, "model_access_denied") ||
		!strings.Contains(errs, `"status_code":403`) {
		t.Errorf("error file %s", errs)
	}
	if out := read(done.OutputFileID); !strings.Contains(out, `"custom_id":"alias"`) || strings.Contains(out, `"custom_id":"denied"`) {
		t.Errorf("output file %s", out)
	}
}

// TestIfaceBatchDeniedModelNotSentUpstream: a batch whose model an access
// policy keeps from the submitter's user path is not handed to the
// provider's own batch API; its lines are refused at the gateway with 403
// model_access_denied. So is a batch naming a virtual model that shadows a
// provider model and is kept from that path.
func TestIfaceBatchDeniedModelNotSentUpstream(t *testing.T) {
	for _, tc := range []struct{ name, rows, model string }{
		{"policy", "  - source: oa/*\n    user_paths: [/team]\n", "oa/gpt-4o-mini"},
		{"shadowing alias", "  - source: gpt-4o-mini\n    user_paths: [/team]\n    targets: [{provider: oa, model: gpt-4o-mini}]\n", "gpt-4o-mini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			up := newFakeBatchAPI(t)
			cfg := writeFile(t, "batch.yaml", "virtual_models:\n"+tc.rows)
			g := startGateway(t, mockBlock("config_file "+cfg+"\n"+providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1")))
			poll(t, 5*time.Second, "oa/gpt-4o-mini is in the inventory", func() bool {
				return strings.Contains(string(adminCall(t, g, "GET", "/admin/models", "").Body), `"selector":"oa/gpt-4o-mini"`)
			})
			key := createKey(t, g, `{"name":"outsider","user_path":"/other"}`)
			line := `{"model":"` + tc.model + `","messages":[{"role":"user","content":"1"}]}`
			request(t, "POST", g.URL+"/v1/chat/completions", line, append(bearer(key.Secret), "Content-Type", "application/json")...).
				ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
			c := openaiClient(g, key.Secret)
			input := `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":` + line + "}\n"
			f := uploadBatchFile(t, c, []byte(input))
			b, err := c.Batches.New(context.Background(), openai.BatchNewParams{InputFileID: f.ID,
				Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
			if err != nil {
				t.Fatal(err)
			}
			done := waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.Status == openai.BatchStatusCompleted })
			up.mu.Lock()
			sent := len(up.batches)
			up.mu.Unlock()
			if sent != 0 || done.RequestCounts.Failed != 1 || done.ErrorFileID == "" {
				t.Fatalf("upstream batches %d, finished batch %+v", sent, done)
			}
			resp, err := c.Files.Content(context.Background(), done.ErrorFileID)
			if err != nil {
				t.Fatal(err)
			}
			errs, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(errs), "model_access_denied") {
				t.Errorf("error file %s", errs)
			}
		})
	}
}

// transcribeAs sends a transcription request for model as userPath.
func transcribeAs(t *testing.T, g *gateway, model, userPath string) response {
	t.Helper()
	body, ct := multipartBody(t, map[string]string{"model": model})
	return request(t, "POST", g.URL+"/v1/audio/transcriptions", body,
		append(bearer(masterKey), "Content-Type", ct, userPathHeader, userPath)...)
}

// TestIfaceTranscriptionModelAccess: a transcription request is routed
// as every model request is: a model an access policy disables, or keeps
// from the caller's path, answers 403 model_access_denied, and a virtual
// model's name is served by its target.
func TestIfaceTranscriptionModelAccess(t *testing.T) {
	clearEnv(t)
	cfg := writeFile(t, "stt.yaml", `virtual_models:
  - source: demo/mock-transcribe
    user_paths: [/team]
  - source: stt
    targets: [{provider: demo, model: mock-transcribe}]
`)
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"))
	waitListed(t, g, masterKey, "stt")
	transcribeAs(t, g, "mock-transcribe", "/other").ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
	if res := transcribeAs(t, g, "mock-transcribe", "/team/a"); res.Status != 200 {
		t.Errorf("under /team: %d %s", res.Status, res.Body)
	}
	if res := transcribeAs(t, g, "stt", "/team"); res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "demo" {
		t.Errorf("through the virtual model: %d %s", res.Status, res.Body)
	}
}
