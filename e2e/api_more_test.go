package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// TestAPIProviderWireFormats checks the per-type differences of the
// upstream request: azure's deployment URL and api-key header, mistral's
// missing stream_options, and no credential at all for a keyless vllm.
func TestAPIProviderWireFormats(t *testing.T) {
	clearEnv(t)
	az := newReplay(t, "openai")
	azAnswer := fixtures.Must(t, "openai", "chat_completion.json")
	az.Handle("/openai/deployments/my-deploy/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(azAnswer)
	})
	mi := newReplay(t, "openai")
	mi.Handle("/v1/chat/completions", usageUpstream)
	vl := newReplay(t, "openai")
	g := startGateway(t, "master_key "+masterKey+"\n"+
		providerBlock("az", "azure", "az-key-123", az.srv.URL, "models my-deploy", "models_mode allowlist")+
		providerBlock("mi", "mistral", "mi-key-456", mi.BaseURL(), "models mistral-small", "models_mode allowlist")+
		providerBlock("vl", "vllm", "", vl.BaseURL(), "models qwen", "models_mode allowlist"))

	t.Run("azure", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"az/my-deploy","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 || !strings.Contains(string(res.Body), "Hello, World!") {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		rs := az.Requests("/openai/deployments/my-deploy/chat/completions")
		if len(rs) != 1 {
			t.Fatalf("azure upstream got %d requests at the deployment URL (all: %+v)", len(rs), az.Requests(""))
		}
		r := rs[0]
		if r.Query != "api-version=2024-10-21" {
			t.Errorf("azure query = %q", r.Query)
		}
		if r.Header.Get("Api-Key") != "az-key-123" || r.Header.Get("Authorization") != "" {
			t.Errorf("azure credential headers: api-key=%q Authorization=%q", r.Header.Get("Api-Key"), r.Header.Get("Authorization"))
		}
		noSecret(t, r, masterKey)
	})
	t.Run("mistral stream gets no stream_options", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"mistral-small","stream":true,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 || summarizeStream(t, res.Body).Content != "Hello there" {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		if so, ok := mi.LastChat(t).JSON(t)["stream_options"]; ok {
			t.Errorf("mistral upstream got stream_options %v", so)
		}
		if got := mi.LastChat(t).Header.Get("Authorization"); got != "Bearer mi-key-456" {
			t.Errorf("mistral Authorization = %q", got)
		}
	})
	t.Run("keyless vllm gets no credential", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"vl/qwen","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		r := vl.LastChat(t)
		if r.Header.Get("Authorization") != "" || r.Header.Get("Api-Key") != "" || r.Header.Get("X-Api-Key") != "" {
			t.Errorf("keyless upstream got credentials: %v", r.Header)
		}
		if r.JSON(t)["model"] != "qwen" {
			t.Errorf("model = %v", r.JSON(t)["model"])
		}
		noSecret(t, r, masterKey)
	})
}

// TestAPIStreamShapes sends unusual but valid event streams through the
// gateway: CRLF line endings, an event larger than any read buffer, and a
// usage chunk without a trailing [DONE]; the client gets the upstream's
// bytes (minus the usage chunk it did not ask for).
func TestAPIStreamShapes(t *testing.T) {
	clearEnv(t)
	big := strings.Repeat("abcdefghij", 4000) // 40 000 bytes of content
	usageCRLF := strings.ReplaceAll(usageChunk, "\n", "\r\n")
	shapes := map[string]struct {
		events   []string
		want     string // what the client must receive
		content  string
		upstream string
	}{
		"crlf": {
			events: []string{
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\n",
				usageCRLF,
				"data: [DONE]\r\n\r\n",
			},
			want:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n",
			content: "Hi",
		},
		"large event": {
			events: []string{
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + big + "\"}}]}\n\n",
				usageChunk,
				"data: [DONE]\n\n",
			},
			want:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + big + "\"}}]}\n\ndata: [DONE]\n\n",
			content: big,
		},
		"usage chunk last, no [DONE], no final blank line": {
			events: []string{
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"end\"}}]}\n\n",
				strings.TrimSuffix(usageChunk, "\n"),
			},
			want:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"end\"}}]}\n\n",
			content: "end",
		},
		"comments and named events pass": {
			events: []string{
				": keep-alive\n\n",
				"event: message\nid: 1\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n",
				"data: [DONE]\n\n",
			},
			want:    ": keep-alive\n\nevent: message\nid: 1\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n",
			content: "x",
		},
	}
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for name, s := range shapes {
			if strings.Contains(string(body), `"content":"`+name+`"`) {
				w.Header().Set("Content-Type", "text/event-stream")
				for _, ev := range s.events {
					_, _ = io.WriteString(w, ev)
					_ = http.NewResponseController(w).Flush()
				}
				return
			}
		}
		http.Error(w, "unknown shape", 500)
	})
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models m", "models_mode allowlist"))
	for name, s := range shapes {
		t.Run(name, func(t *testing.T) {
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"m","stream":true,"messages":[{"role":"user","content":"`+name+`"}]}`)
			if res.Status != 200 {
				t.Fatalf("status %d: %.300s", res.Status, res.Body)
			}
			if string(res.Body) != s.want {
				t.Errorf("client received (%d bytes)\n%.400q\nwant (%d bytes)\n%.400q", len(res.Body), res.Body, len(s.want), s.want)
			}
		})
	}
}

// TestAPIStreamOptionsShapes: whatever stream_options the client sent,
// the upstream gets valid JSON asking for usage, or the client gets a
// clean 400.
func TestAPIStreamOptionsShapes(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", usageUpstream)
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models m", "models_mode allowlist"))
	for _, c := range []struct {
		name, opts string
		status     int
	}{
		{"null", `null`, 200},
		{"empty object", `{}`, 200},
		{"include_usage null", `{"include_usage":null}`, 200},
		{"other option kept", `{"include_obfuscation":false}`, 200},
		{"array", `[1]`, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			u.Reset()
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"m","stream":true,"stream_options":`+c.opts+`,"messages":[{"role":"user","content":"hi"}]}`)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			if res.Status != 200 {
				e := decodeError(t, res.Status, res.Body)
				if e.Type != "invalid_request_error" {
					t.Errorf("type %q", e.Type)
				}
				return
			}
			up := u.LastChat(t).JSON(t)
			so, _ := up["stream_options"].(map[string]any)
			if so["include_usage"] != true {
				t.Errorf("upstream stream_options = %v", up["stream_options"])
			}
			if c.name == "other option kept" && so["include_obfuscation"] != false {
				t.Errorf("client's own stream option lost: %v", so)
			}
			if strings.Contains(string(res.Body), `"choices":[]`) {
				t.Errorf("client got the usage chunk it did not ask for")
			}
		})
	}
}

// TestAPIRetryAfterForwarding: the upstream's Retry-After reaches the
// client as sent.
func TestAPIRetryAfterForwarding(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(body), "http-date"):
			w.Header().Set("Retry-After", "Wed, 21 Oct 2037 07:28:00 GMT")
			w.WriteHeader(429)
		case strings.Contains(string(body), "unavailable"):
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(503)
		default:
			w.Header().Set("Retry-After", "12")
			w.WriteHeader(429)
		}
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`)
	})
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models m", "models_mode allowlist"))
	for _, c := range []struct {
		name, content string
		status        int
		retryAfter    string
		bug           string
	}{
		{"429 seconds", "seconds", 429, "12", ""},
		{"503 seconds", "unavailable", 503, "30", ""},
		{"429 HTTP-date", "http-date", 429, "Wed, 21 Oct 2037 07:28:00 GMT", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.bug != "" {
				t.Skip("BUG: " + c.bug)
			}
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"m","messages":[{"role":"user","content":"`+c.content+`"}]}`)
			if res.Status != c.status {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if got := res.Header.Get("Retry-After"); got != c.retryAfter {
				t.Errorf("Retry-After = %q, upstream sent %q", got, c.retryAfter)
			}
			decodeError(t, res.Status, res.Body)
		})
	}
}

// TestAPIFirstListingRoundWait: a bare model only a slow-listing provider
// serves is answered once that listing arrives, not refused early.
func TestAPIFirstListingRoundWait(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	models := fixtures.Must(t, "openai", "models.json")
	u.Handle("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(600 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(models)
	})
	g := startGateway(t, providerBlock("openai", "openai", "sk-o", u.BaseURL()))
	start := time.Now()
	res := request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`)
	if res.Status != 200 {
		t.Fatalf("bare model during the first listing round: %d %s", res.Status, res.Body)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	res = request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"gpt-404","messages":[{"role":"user","content":"hi"}]}`)
	if res.Status != 404 {
		t.Fatalf("unknown model after the listing: %d %s", res.Status, res.Body)
	}
}

// TestAPIConcurrentStreams: parallel streamed requests each get their own
// answer, complete.
func TestAPIConcurrentStreams(t *testing.T) {
	g := startMockGateway(t)
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			word := fmt.Sprintf("request-%02d", i)
			req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"`+word+` says hello"}]}`))
			req.Header.Set("Authorization", "Bearer "+masterKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			raw := []byte{}
			for {
				ev, err := readEvent(br)
				raw = append(raw, ev...)
				if err != nil {
					break
				}
			}
			for _, d := range eventData(raw) {
				if strings.Contains(d, "request-") && !strings.Contains(d, word) {
					errs <- fmt.Errorf("%s got another request's chunk: %s", word, d)
					return
				}
			}
			exp, err := parseStream(raw)
			if err != nil {
				errs <- err
				return
			}
			if got, want := exp.Content, "Echo: "+word+" says hello"; got != want {
				errs <- fmt.Errorf("%s: content %q, want %q", word, got, want)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestAPIRequestBodyFidelity: the gateway forwards the client's body as
// sent, byte for byte, changing only the model when a provider prefix
// must go.
func TestAPIRequestBodyFidelity(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models m", "models_mode allowlist"))
	body := "{\n  \"temperature\": 0.70,\n  \"seed\": 123456789012345678901,\n  \"model\": %q,\n" +
		"  \"messages\": [{\"role\": \"user\", \"content\": \"caf\\u00e9 \\\"quoted\\\" </script>\"}],\n" +
		"  \"vendor_extension\": {\"nested\": [1, 2.50, null, true], \"empty\": {}}\n}\n"
	for _, c := range []struct{ sent, upstream string }{
		{"m", "m"},
		{"up/m", "m"},
	} {
		t.Run(c.sent, func(t *testing.T) {
			u.Reset()
			res := request(t, "POST", g.URL+"/v1/chat/completions", fmt.Sprintf(body, c.sent))
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			got := string(u.LastChat(t).Body)
			want := fmt.Sprintf(body, c.upstream)
			if got != want {
				t.Errorf("upstream body differs from the client's:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestAPITimeoutCoversHeadersOnly: a provider's timeout bounds the wait
// for the upstream's response headers, not a long stream that started in
// time; a non-streamed answer must be whole within it.
func TestAPITimeoutCoversHeadersOnly(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		stream := strings.Contains(string(body), `"stream":true`)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(200)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for i := 0; i < 3; i++ {
			select {
			case <-time.After(400 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			if stream {
				_, _ = fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%d\"}}]}\n\n", i)
			} else if i == 0 {
				_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","created":1,"model":"m",`)
			}
			_ = rc.Flush()
		}
		if stream {
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		} else {
			_, _ = io.WriteString(w, `"choices":[{"index":0,"message":{"role":"assistant","content":"late but whole"},"finish_reason":"stop"}]}`)
		}
	})
	g := startGateway(t, providerBlock("up", "openai", "sk-up", u.BaseURL(), "models m", "models_mode allowlist", "timeout 1s"))
	for _, c := range []struct {
		name, body, want string
		status           int
	}{
		{"stream", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "data: [DONE]\n\n", 200},
		{"non-stream", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `"code":"upstream_timeout"`, 504},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := request(t, "POST", g.URL+"/v1/chat/completions", c.body)
			if res.Status != c.status || !strings.Contains(string(res.Body), c.want) {
				t.Fatalf("an answer that started in time but lasted 1.2s with timeout 1s: %d %s", res.Status, res.Body)
			}
			if c.name == "stream" && summarizeStream(t, res.Body).Content != "012" {
				t.Errorf("stream content = %q", summarizeStream(t, res.Body).Content)
			}
		})
	}
}
