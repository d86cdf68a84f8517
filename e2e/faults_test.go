package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Secrets of the fault run: no answer may contain them.
const (
	fltOpenAIKey    = "sk-flt-openai-5f2c9d7e1a"
	fltAnthropicKey = "sk-ant-flt-8b3e6a0c4d"
	fltMasterKey    = "flt-master-key-7d1e"
	fltUserPath     = "/faults"
)

// fltFaults are the upstream faults, each chosen by the model name the
// gateway forwards.
var fltFaults = []string{
	"fault-html500", "fault-malformed200", "fault-truncated", "fault-reset", "fault-silence",
	"fault-drip", "fault-huge", "fault-429", "fault-401", "fault-400key",
	"fault-redirect", "fault-429bare", "fault-headerkey",
}

// fltUpstream is the fake upstream: OpenAI Chat Completions and Responses,
// and Anthropic Messages, whose every answer is picked by the requested
// model: fault-ok answers normally, the others fail as named.
func fltUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		shape := "chat"
		switch r.URL.Path {
		case "/v1/responses":
			shape = "responses"
		case "/v1/messages":
			shape = "messages"
		}
		fltServeFault(w, r, shape, req.Model, req.Stream)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fltOK is a normal answer of each upstream shape, whole or as a stream.
func fltOK(shape string, stream bool) (contentType, body string) {
	if !stream {
		switch shape {
		case "responses":
			return "application/json", `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"fault-ok",` +
				`"output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],` +
				`"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
		case "messages":
			return "application/json", `{"id":"msg_1","type":"message","role":"assistant","model":"fault-ok","content":[{"type":"text","text":"ok"}],` +
				`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
		}
		return "application/json", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"fault-ok",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	}
	return "text/event-stream", fltFirstEvent(shape) + fltLastEvents(shape)
}

// fltFirstEvent is the first event of each upstream shape's stream.
func fltFirstEvent(shape string) string {
	switch shape {
	case "responses":
		return "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n"
	case "messages":
		return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fault-ok\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\n"
	}
	return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fault-ok\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":null}]}\n\n"
}

// fltLastEvents end each upstream shape's stream.
func fltLastEvents(shape string) string {
	switch shape {
	case "responses":
		return "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\n"
	case "messages":
		return "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	}
	return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fault-ok\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fault-ok\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n" +
		"data: [DONE]\n\n"
}

// fltUsageEvents are events of each upstream shape's stream that report
// 5 input and 3 output tokens: the usage chunk, response.completed, or
// message_start and message_delta.
func fltUsageEvents(shape string) string {
	switch shape {
	case "responses":
		return "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":3,\"total_tokens\":8}}}\n\n"
	case "messages":
		return "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}\n\n"
	}
	return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fault-ok\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8}}\n\n"
}

// fltServeFault answers one upstream request as the model names.
func fltServeFault(w http.ResponseWriter, r *http.Request, shape, model string, stream bool) {
	key := fltOpenAIKey
	if shape == "messages" {
		key = fltAnthropicKey
	}
	jsonErr := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	ctype, okBody := fltOK(shape, stream)
	flush := func() { _ = http.NewResponseController(w).Flush() }
	switch model {
	case "fault-ok":
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, okBody)
	case "fault-html500":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(500)
		_, _ = io.WriteString(w, "<html><body><h1>500</h1>backend 127.0.0.1:9 refused key "+key+"</body></html>")
	case "fault-malformed200":
		w.Header().Set("Content-Type", ctype)
		if stream {
			_, _ = io.WriteString(w, fltFirstEvent(shape)+"data: {\"choices\":[{\"delta\":\n\n"+fltLastEvents(shape))
			return
		}
		_, _ = io.WriteString(w, `{"id":"x","choices":[{"message":`)
	case "fault-truncated":
		if stream {
			w.Header().Set("Content-Type", ctype)
			_, _ = io.WriteString(w, fltFirstEvent(shape)+`data: {"partial":"ev`)
			return // a clean end inside a line
		}
		fltHijack(w, false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"+okBody[:20])
	case "fault-reset":
		if stream {
			fltHijack(w, true, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
				fmt.Sprintf("%x\r\n%s\r\n", len(fltFirstEvent(shape))+10, fltFirstEvent(shape)+"data: {\"pa"))
			return
		}
		fltHijack(w, true, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"+okBody[:20])
	case "fault-resetusage":
		// The upstream reports its usage, then resets inside an event.
		events := fltFirstEvent(shape) + fltUsageEvents(shape) + "data: {\"pa"
		fltHijack(w, true, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
			fmt.Sprintf("%x\r\n%s\r\n", len(events), events))
	case "fault-silence":
		w.Header().Set("Content-Type", ctype)
		if stream {
			_, _ = io.WriteString(w, fltFirstEvent(shape))
		}
		flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	case "fault-drip":
		// Gaps shorter than the idle timeout. A whole answer never
		// completes within the provider timeout; a stream of events
		// spaced so completes, later than that timeout.
		w.Header().Set("Content-Type", ctype)
		if stream {
			_, _ = io.WriteString(w, fltFirstEvent(shape))
			flush()
			for i := 0; i < 12; i++ {
				if !fltSleep(r, 100*time.Millisecond) {
					return
				}
				_, _ = io.WriteString(w, ": drip\n\n")
				flush()
			}
			_, _ = io.WriteString(w, fltLastEvents(shape))
			return
		}
		for i := 0; i < 200; i++ {
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			flush()
			if !fltSleep(r, 100*time.Millisecond) {
				return
			}
		}
	case "fault-huge":
		w.Header().Set("Content-Type", ctype)
		if stream {
			_, _ = io.WriteString(w, fltFirstEvent(shape)+"data: ")
		}
		chunk := strings.Repeat("z", 32<<10)
		for i := 0; i < 300<<20/len(chunk); i++ { // up to 300 MiB
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	case "fault-429":
		w.Header().Set("Retry-After", "13")
		jsonErr(429, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`)
	case "fault-401":
		jsonErr(401, `{"error":{"message":"Incorrect API key provided: `+key+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	case "fault-400key":
		if shape == "messages" {
			jsonErr(400, `{"type":"error","error":{"type":"invalid_request_error","message":"key `+key+` may not set top_k"}}`)
			return
		}
		jsonErr(400, `{"error":{"message":"key `+key+` may not set temperature","type":"invalid_request_error","param":"temperature","code":null}}`)
	case "fault-redirect":
		// Elsewhere, with the key in the URL: neither may reach the client.
		w.Header().Set("X-Debug-Location", fltElsewhere().url+r.URL.Path+"?key="+key)
		http.Redirect(w, r, fltElsewhere().url+r.URL.Path+"?key="+key, http.StatusTemporaryRedirect)
	case "fault-429bare":
		// No Retry-After; the tokens limit, spent, resets in 6 minutes.
		w.Header().Set("X-Ratelimit-Reset-Requests", "1s")
		w.Header().Set("X-Ratelimit-Reset-Tokens", "6m0s")
		w.Header().Set("X-Ratelimit-Remaining-Tokens", "0")
		jsonErr(429, `{"error":{"message":"Rate limit reached for tokens","type":"tokens","code":"rate_limit_exceeded"}}`)
	case "fault-headerkey":
		w.Header().Set("X-Debug-Key", key)
		jsonErr(400, `{"error":{"message":"bad request","type":"invalid_request_error","code":"bad"}}`)
	default:
		jsonErr(404, `{"error":{"message":"unknown model","code":"model_not_found"}}`)
	}
}

// fltElsewhere is where fault-redirect points: a second listener, on
// another host (localhost) and port than the upstream, that must receive
// nothing. It lives as long as the test binary.
var fltElsewhere = sync.OnceValue(func() *fltListener {
	l := &fltListener{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"foreign"}`)
	}))
	l.url = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return l
})

// fltListener is a listener and the count of requests it received.
type fltListener struct {
	url  string
	hits atomic.Int64
}

// fltHijack writes raw bytes on the connection and closes it; rst closes
// with a TCP reset instead of a clean close.
func fltHijack(w http.ResponseWriter, rst bool, raw string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	_, _ = buf.WriteString(raw)
	_ = buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		time.Sleep(20 * time.Millisecond) // let the gateway read what was sent
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func fltSleep(r *http.Request, d time.Duration) bool {
	select {
	case <-r.Context().Done():
		return false
	case <-time.After(d):
		return true
	}
}

// fltShape is one way in: an ingress shape and the provider behind it.
type fltShape struct {
	name, path string
	provider   string // model prefix: fo (OpenAI) or fa (Anthropic)
	envelope   string // error shape the client expects: openai or anthropic
	stream     string // error-event shape on a started stream: chat, responses, messages
	translated bool   // the gateway translates (checks the native half only)
}

var fltShapes = []fltShape{
	{"chat", "/v1/chat/completions", "fo", "openai", "chat", false},
	{"responses", "/v1/responses", "fo", "openai", "responses", false},
	{"messages", "/v1/messages", "fa", "anthropic", "messages", false},
	{"messages on openai", "/v1/messages", "fo", "anthropic", "messages", true},
}

func (s fltShape) body(model string, stream bool) string {
	m := s.provider + "/" + model
	switch s.path {
	case "/v1/responses":
		return fmt.Sprintf(`{"model":%q,"stream":%v,"input":"hi"}`, m, stream)
	case "/v1/messages":
		return fmt.Sprintf(`{"model":%q,"stream":%v,"max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`, m, stream)
	}
	return fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, m, stream)
}

// fltAnswer is what a client got.
type fltAnswer struct {
	status  int
	header  http.Header
	body    string
	readErr error // the connection was cut before the answer ended
	took    time.Duration
}

func fltPost(t *testing.T, g *gateway, path, body string) fltAnswer {
	t.Helper()
	return fltPostAs(t, g, path, body, fltUserPath)
}

// fltPostAs is fltPost for the caller's user path userPath.
func fltPostAs(t *testing.T, g *gateway, path, body, userPath string) fltAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+fltMasterKey)
	req.Header.Set("X-Modelgate-User-Path", userPath)
	start := time.Now()
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return fltAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), readErr: rerr, took: time.Since(start)}
}

// fltErr decodes a whole-answer error in the envelope of the route and
// returns its type and code (code "" in the Anthropic envelope).
func fltErr(t *testing.T, envelope, body string) (typ, code, msg string) {
	t.Helper()
	if envelope == "anthropic" {
		var e struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		if json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type == "" {
			t.Fatalf("not the Anthropic error envelope: %.300s", body)
		}
		return e.Error.Type, "", e.Error.Message
	}
	var e struct {
		Error *struct {
			Type, Message string
			Code          *string
		}
	}
	if json.Unmarshal([]byte(body), &e) != nil || e.Error == nil {
		t.Fatalf("not the gateway error shape: %.300s", body)
	}
	if e.Error.Code != nil {
		code = *e.Error.Code
	}
	return e.Error.Type, code, e.Error.Message
}

// fltErrEvent finds the error event ending a started stream and returns
// its code (chat and responses) or Anthropic error type (messages).
func fltErrEvent(t *testing.T, shape, body string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			if line == "" {
				name = ""
			}
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(data), &m) != nil {
			continue
		}
		switch {
		case shape == "chat" && name == "" && m["error"] != nil:
			e, _ := m["error"].(map[string]any)
			return fmt.Sprint(e["code"])
		case shape == "responses" && name == "error" && m["type"] == "error":
			return fmt.Sprint(m["code"])
		case shape == "messages" && name == "error" && m["type"] == "error":
			e, _ := m["error"].(map[string]any)
			return fmt.Sprint(e["type"])
		}
	}
	t.Fatalf("no %s error event in %.500q", shape, body)
	return ""
}

func fltClearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") || k == "GATEWAY_MASTER_KEY" ||
			strings.HasPrefix(k, "SET_RATE_LIMIT_") || strings.HasPrefix(k, "SET_PROVIDER_RATE_LIMIT_") {
			t.Setenv(k, "")
		}
	}
}

// TestFaultInjection runs every upstream fault against every ingress
// shape, whole and streamed, with one concurrent request allowed on the
// caller's user path and on each provider. Each answer must have the
// expected status and shape, name no credential and no loopback address,
// and leave the slots free: the next request is admitted.
func TestFaultInjection(t *testing.T) {
	g := fltGateway(t)

	for _, sh := range fltShapes {
		for _, stream := range []bool{false, true} {
			for _, fault := range fltFaults {
				name := fmt.Sprintf("%s/stream=%v/%s", sh.name, stream, fault)
				t.Run(name, func(t *testing.T) {
					a := fltPost(t, g, sh.path, sh.body(fault, stream))
					fltCheckClean(t, a)
					fltCheckFault(t, sh, stream, fault, a)
					fltCheckReleased(t, g, sh)
				})
			}
		}
	}
}

// fltGateway starts the gateway of the fault run against the fake
// upstream: providers fo (OpenAI) and fa (Anthropic), one concurrent
// request allowed on the caller's user path and on each provider.
func fltGateway(t *testing.T) *gateway {
	t.Helper()
	fltClearEnv(t)
	t.Setenv("SET_RATE_LIMIT_FAULTS", "concurrent=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_FO", "concurrent=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_FA", "concurrent=1")
	up := fltUpstream(t)
	models := "fault-ok fault-resetusage " + strings.Join(fltFaults, " ")
	provider := func(name, typ, key string) string {
		return "provider " + name + " {\n type " + typ + "\n api_key " + key + "\n base_url " + up.URL + "/v1\n models " + models +
			"\n models_mode allowlist\n timeout 1s\n read_idle_timeout 300ms\n max_response_body 1MiB\n max_stream_event 64KiB\n}\n"
	}
	return startGateway(t, "master_key "+fltMasterKey+"\n"+provider("fo", "openai", fltOpenAIKey)+provider("fa", "anthropic", fltAnthropicKey))
}

// TestFaultStreamCutAudited: a stream the upstream resets in the middle
// of an event, with or without reporting its usage first, aborts a native
// stream (a translated one ends with an error event) and leaves exactly
// one audit entry, 502 upstream_read_failed, with the usage the upstream
// reported, and a usage record of it; the slots it held are free again.
func TestFaultStreamCutAudited(t *testing.T) {
	g := fltGateway(t)
	get := func(t *testing.T, path, userPath string) map[string]any {
		t.Helper()
		res := request(t, "GET", g.URL+path, "", "Authorization", "Bearer "+fltMasterKey, userPathHeader, userPath)
		if res.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		return res.JSON(t)
	}
	n := 0
	for _, sh := range fltShapes {
		for _, fault := range []string{"fault-reset", "fault-resetusage"} {
			t.Run(sh.name+"/"+fault, func(t *testing.T) {
				n++
				userPath := fmt.Sprintf("%s/cut/%d", fltUserPath, n)
				a := fltPostAs(t, g, sh.path, sh.body(fault, true), userPath)
				fltCheckClean(t, a)
				if a.status != 200 {
					t.Fatalf("status %d: %.300s", a.status, a.body)
				}
				if !sh.translated && a.readErr == nil {
					t.Errorf("a cut native stream reached the client as complete: %.300q", a.body)
				}
				log := get(t, "/admin/audit/log?user_path="+userPath, fltUserPath)
				entries, _ := log["entries"].([]any)
				if log["total"] != 1.0 || len(entries) != 1 {
					t.Fatalf("the audit log holds %v entries for the request, want 1: %v", log["total"], log)
				}
				id, _ := entries[0].(map[string]any)["id"].(string)
				e := get(t, "/admin/audit/log/"+id, fltUserPath)
				data, _ := e["data"].(map[string]any)
				if e["status_code"] != 502.0 || data["error_code"] != "upstream_read_failed" || e["error_type"] != "provider_error" {
					t.Errorf("entry status %v, error %v/%v; want 502 provider_error/upstream_read_failed", e["status_code"], e["error_type"], data["error_code"])
				}
				usage, _ := e["usage"].(map[string]any)
				today, _ := get(t, "/v1/usage", userPath)["usage"].(map[string]any)["today"].(map[string]any)
				if fault == "fault-resetusage" {
					if usage["total_tokens"] != 8.0 || usage["input_tokens"] != 5.0 {
						t.Errorf("entry usage %v, want the 5+3 tokens reported before the cut", usage)
					}
					if today["requests"] != 1.0 || today["total_tokens"] != 8.0 {
						t.Errorf("usage of the user path %v, want one record of 8 tokens", today)
					}
				} else if sh.name == "chat" || sh.name == "responses" {
					if usage["total_tokens"] != 0.0 || today["requests"] != 0.0 {
						t.Errorf("no usage was reported, yet the entry has %v and the user path %v", usage, today)
					}
				}
				fltCheckReleased(t, g, sh)
			})
		}
	}
}

// fltCheckClean: no credential, no loopback address, no Go error text.
func fltCheckClean(t *testing.T, a fltAnswer) {
	t.Helper()
	all := a.body
	for k, vs := range a.header {
		all += "\n" + k + ": " + strings.Join(vs, ",")
	}
	for _, bad := range []string{fltOpenAIKey, fltAnthropicKey, fltMasterKey, "127.0.0.1:", "dial tcp", "read tcp", "connection reset", "unexpected EOF"} {
		if strings.Contains(all, bad) {
			t.Errorf("answer contains %q: %.400s", bad, all)
		}
	}
}

// fltCheckReleased: the next request on the same user path and provider
// is admitted (a leaked slot would refuse it with 429 for good).
func fltCheckReleased(t *testing.T, g *gateway, sh fltShape) {
	t.Helper()
	poll(t, 2*time.Second, "the next request admitted", func() bool {
		a := fltPost(t, g, sh.path, sh.body("fault-ok", false))
		if a.status != 200 && a.status != 429 {
			t.Fatalf("the next request was not admitted: %d %.300s", a.status, a.body)
		}
		return a.status == 200
	})
}

// fltCheckFault checks the status and shape the fault must produce.
func fltCheckFault(t *testing.T, sh fltShape, stream bool, fault string, a fltAnswer) {
	t.Helper()
	wantErr := func(status int, typ, code string) {
		t.Helper()
		if a.status != status {
			t.Fatalf("status %d, want %d: %.400s", a.status, status, a.body)
		}
		gotTyp, gotCode, _ := fltErr(t, sh.envelope, a.body)
		if sh.envelope == "anthropic" {
			typ = fltAnthropicType(status)
			code = ""
		}
		if gotTyp != typ || gotCode != code {
			t.Errorf("error %s/%s, want %s/%s: %.300s", gotTyp, gotCode, typ, code, a.body)
		}
	}
	// A started stream that failed ends with an error event (or, for a
	// cut, an aborted connection); on translated streams that half
	// belongs to the translator, so only cleanliness and release count.
	startedStream := func(code string) {
		t.Helper()
		if a.status != 200 {
			t.Fatalf("status %d: %.400s", a.status, a.body)
		}
		if sh.translated {
			return
		}
		if a.readErr != nil {
			t.Fatalf("stream cut instead of an error event: %v", a.readErr)
		}
		if sh.stream == "messages" {
			code = "api_error"
		}
		if got := fltErrEvent(t, sh.stream, a.body); got != code {
			t.Errorf("error event %q, want %q", got, code)
		}
	}
	aborted := func() {
		t.Helper()
		if a.status != 200 {
			t.Fatalf("status %d: %.400s", a.status, a.body)
		}
		if sh.translated {
			return
		}
		if a.readErr == nil {
			t.Errorf("a cut upstream stream reached the client as complete: %.400q", a.body)
		}
		if strings.Contains(a.body, "partial") || strings.Contains(a.body, `{"pa`) {
			t.Errorf("a partial event was forwarded: %.400q", a.body)
		}
	}
	switch fault {
	case "fault-html500":
		wantErr(500, "provider_error", "")
		if _, _, msg := fltErr(t, sh.envelope, a.body); !strings.Contains(msg, "Internal Server Error") || strings.Contains(msg, "<html") {
			t.Errorf("message %q", msg)
		}
	case "fault-malformed200":
		switch {
		case sh.translated && !stream:
			if a.status != 502 {
				t.Errorf("status %d: %.300s", a.status, a.body)
			}
		case !stream:
			// Native answers pass through unchanged, malformed or not.
			if a.status != 200 || !strings.HasPrefix(a.body, `{"id":"x"`) {
				t.Errorf("%d %.300s", a.status, a.body)
			}
		case !sh.translated:
			if a.status != 200 || a.readErr != nil {
				t.Errorf("%d %v", a.status, a.readErr)
			}
		}
	case "fault-truncated", "fault-reset":
		if stream {
			aborted()
			return
		}
		wantErr(502, "provider_error", "upstream_read_failed")
	case "fault-silence":
		if stream {
			startedStream("upstream_timeout")
			return
		}
		wantErr(504, "provider_error", "upstream_timeout")
		if a.took > 5*time.Second {
			t.Errorf("took %v", a.took)
		}
	case "fault-drip":
		if stream {
			if a.status != 200 || a.readErr != nil || a.took < time.Second {
				t.Errorf("a slow stream that never went silent: %d %v after %v", a.status, a.readErr, a.took)
			}
			return
		}
		wantErr(504, "provider_error", "upstream_timeout")
		if a.took > 5*time.Second {
			t.Errorf("took %v", a.took)
		}
	case "fault-huge":
		if stream {
			startedStream("upstream_response_too_large")
			if len(a.body) > 256<<10 {
				t.Errorf("relayed %d bytes of an oversized event", len(a.body))
			}
			return
		}
		wantErr(502, "provider_error", "upstream_response_too_large")
	case "fault-429":
		wantErr(429, "rate_limit_error", "rate_limit_exceeded")
		if a.header.Get("Retry-After") != "13" {
			t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
		}
	case "fault-401":
		wantErr(401, "authentication_error", "upstream_auth_failed")
	case "fault-redirect":
		// Never followed: a provider failure, where it pointed unsaid.
		wantErr(502, "provider_error", "upstream_redirect")
		if strings.Contains(a.body, "localhost") || a.header.Get("Location") != "" || fltElsewhere().hits.Load() != 0 {
			t.Errorf("the redirect reached the client or was followed (%d hits): %v %.300s", fltElsewhere().hits.Load(), a.header, a.body)
		}
	case "fault-429bare":
		wantErr(429, "rate_limit_error", "rate_limit_exceeded")
		if a.header.Get("Retry-After") != "360" {
			t.Errorf("Retry-After %q, want 360 (the spent tokens limit's reset)", a.header.Get("Retry-After"))
		}
	case "fault-headerkey":
		wantErr(400, "invalid_request_error", "bad")
	case "fault-400key":
		wantErr(400, "invalid_request_error", "invalid_request_error") // the upstream's type, its code being null
		if _, _, msg := fltErr(t, sh.envelope, a.body); !strings.Contains(msg, "[redacted]") {
			t.Errorf("message %q", msg)
		}
	}
}

// fltAnthropicType is the Anthropic error type the gateway uses for status.
func fltAnthropicType(status int) string {
	switch {
	case status == 401:
		return "authentication_error"
	case status == 429:
		return "rate_limit_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

// TestFaultOverlongModel (issue 35, item 1): a passthrough call whose JSON
// model is 40,000 characters, answered 200 with usage, made a usage
// aggregate key bbolt refuses, and the store's writer retried that batch
// forever: no audit entry or usage record was stored from then on. Now
// the passthrough model is recorded cut and marked (catalog.RecordedModelID),
// later requests are still recorded and readable through the admin API,
// and the model endpoints refuse a model over 256 bytes with 400
// invalid_value (their audit entry recorded, with the model cut).
func TestFaultOverlongModel(t *testing.T) {
	clearEnv(t)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "fo")
	up := newRecordingUpstream(t, passthroughUpstream)
	g := startGateway(t, "master_key "+masterKey+"\n"+
		providerBlock("fo", "openai", fltOpenAIKey, up.URL+"/v1", "models gpt-4o-mini", "models_mode allowlist"))
	long := strings.Repeat("m", 40_000)
	body := func(model string) string {
		return fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hi"}]}`, model)
	}

	res := request(t, "POST", g.URL+"/p/fo/chat/completions", body(long),
		"Authorization", "Bearer "+masterKey, "X-Request-Id", "overlong-passthrough")
	if res.Status != 200 || up.count() != 1 || up.last(t).Body != body(long) {
		t.Fatalf("passthrough %d %.200s; the upstream must get the body unchanged", res.Status, res.Body)
	}
	res = request(t, "POST", g.URL+"/v1/chat/completions", body("gpt-4o-mini"),
		"Authorization", "Bearer "+masterKey, "X-Session-Id", "after-overlong", "X-Request-Id", "after-overlong")
	if res.Status != 200 {
		t.Fatalf("normal request after it: %d %s", res.Status, res.Body)
	}
	// auditRecords flushes the store: on the original code the flush
	// never ended, the batch holding the bad record retried forever.
	entries, usage := auditRecords(t)
	pt := one(t, entries, "overlong-passthrough")
	if pt.RequestedModel != catalog.RecordedModelID(long) || len(pt.RequestedModel) > catalog.MaxModelIDLen ||
		!strings.Contains(pt.RequestedModel, catalog.ModelIDMarker) || pt.StatusCode != 200 {
		t.Errorf("passthrough entry: status %d, model %q (%d bytes)", pt.StatusCode, pt.RequestedModel, len(pt.RequestedModel))
	}
	if us := usage[pt.ID]; len(us) != 1 || us[0].Model != catalog.RecordedModelID(long) || us[0].Usage.TotalTokens != 15 {
		t.Errorf("passthrough usage records %+v", us)
	}
	if e := one(t, entries, "after-overlong"); e.StatusCode != 200 || len(usage[e.ID]) != 1 {
		t.Errorf("request after it: status %d, %d usage records", e.StatusCode, len(usage[e.ID]))
	}

	// Readable through the admin API, with the usage summary.
	if e := auditEntryOf(t, g, "after-overlong"); e["status_code"] != float64(200) {
		t.Errorf("admin API entry %v", e)
	}
	var sum struct {
		TotalRequests int64 `json:"total_requests"`
	}
	adminJSON(t, g, "/admin/usage/summary", &sum)
	if sum.TotalRequests != 2 {
		t.Errorf("usage summary counts %d requests, want 2", sum.TotalRequests)
	}

	// The model endpoints refuse a model over 256 bytes, before any
	// upstream call, and record the refusal with the model cut.
	for _, model := range []string{strings.Repeat("m", 257), long} {
		e := request(t, "POST", g.URL+"/v1/chat/completions", body(model),
			"Authorization", "Bearer "+masterKey, "X-Request-Id", fmt.Sprintf("refused-%d", len(model))).
			ExpectErr(t, http.StatusBadRequest, "invalid_request_error", "invalid_value")
		if e.Param == nil || *e.Param != "model" || !strings.Contains(e.Message, "256") {
			t.Errorf("%d-byte model: %+v", len(model), e)
		}
	}
	// So do the transcription form and the realtime query.
	m257 := strings.Repeat("m", 257)
	form, ctype := multipartBody(t, map[string]string{"model": m257})
	request(t, "POST", g.URL+"/v1/audio/transcriptions", form, "Authorization", "Bearer "+masterKey, "Content-Type", ctype).
		ExpectErr(t, http.StatusBadRequest, "invalid_request_error", "invalid_value")
	request(t, "GET", g.URL+"/v1/realtime?model="+m257, "", "Authorization", "Bearer "+masterKey,
		"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==").
		ExpectErr(t, http.StatusBadRequest, "invalid_request_error", "invalid_value")
	if up.count() != 2 {
		t.Errorf("%d upstream calls, want 2: a refused model reached the upstream", up.count())
	}
	entries, _ = auditRecords(t)
	for _, n := range []int{257, len(long)} {
		e := one(t, entries, fmt.Sprintf("refused-%d", n))
		if e.StatusCode != 400 || e.RequestedModel != catalog.RecordedModelID(strings.Repeat("m", n)) {
			t.Errorf("%d-byte model refused: entry %d %q", n, e.StatusCode, e.RequestedModel)
		}
	}
	if m := string(request(t, "GET", g.AdminURL+"/metrics", "").Body); strings.Contains(m, `reason="key_too_large"`) {
		t.Errorf("records dropped though every model is bounded:\n%s", grepLines(m, "modelgate_audit_dropped_total"))
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
