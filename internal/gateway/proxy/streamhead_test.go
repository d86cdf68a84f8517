package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// headRig is a proxy service with two upstream servers, one and two.
// Server one serves OpenAI model m1 (provider oa1) and Anthropic model c1
// (an1), server two m2 (oa2) and c2 (an2); failover routes send m1 on to
// m2 and c1 on to c2. Model solo (oa1 too) has no route.
type headRig struct {
	t        *testing.T
	s        *Service
	one, two atomic.Value // http.HandlerFunc of each server
	twoCalls atomic.Int32
}

func newHeadRig(t *testing.T) *headRig {
	rig := &headRig{t: t}
	server := func(h *atomic.Value, calls *atomic.Int32) *httptest.Server {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls != nil {
				calls.Add(1)
			}
			h.Load().(http.HandlerFunc)(w, r)
		}))
		t.Cleanup(up.Close)
		return up
	}
	one, two := server(&rig.one, nil), server(&rig.two, &rig.twoCalls)
	provider := func(name, typ string, up *httptest.Server) providers.Provider {
		p, err := providers.New(providers.Options{Name: name, Type: typ, BaseURL: up.URL + "/v1", APIKey: "k-" + name, Client: up.Client()})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: provider("oa1", "openai", one), Models: []string{"m1", "solo"}, Allowlist: true},
		{Provider: provider("an1", "anthropic", one), Models: []string{"c1"}, Allowlist: true},
		{Provider: provider("oa2", "openai", two), Models: []string{"m2"}, Allowlist: true},
		{Provider: provider("an2", "anthropic", two), Models: []string{"c2"}, Allowlist: true},
	}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	vm, err := vmodels.New(vmodels.Options{
		Providers:       map[string]string{"oa1": "openai", "an1": "anthropic", "oa2": "openai", "an2": "anthropic"},
		ManagedFailover: vmodels.Failover{"m1": {"m2"}, "c1": {"c2"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rig.s = &Service{Registry: reg, MaxBodyBytes: 1 << 20, VirtualModels: vm}
	rig.two.Store(http.HandlerFunc(goodStream))
	return rig
}

// serve posts body to path through the virtual-model stage.
func (rig *headRig) serve(path, body string) (*httptest.ResponseRecorder, *reqinfo.Info) {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header["Content-Type"] = jsonContentType
	info := reqinfo.New()
	info.VirtualModels = true
	info.UserPath = "/"
	rec := httptest.NewRecorder()
	rig.s.ServeHTTP(rec, req.WithContext(reqinfo.With(req.Context(), info)))
	return rec, info
}

// sseAnswer answers with the stream body.
func sseAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}
}

// Upstream streams of each shape.
const (
	chatRoleOnly = `data: {"id":"one","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n"
	chatErrorEv  = `data: {"error":{"message":"the server is overloaded","type":"server_error"}}` + "\n\n"
	chatContent  = `data: {"id":"one","choices":[{"index":0,"delta":{"content":"partial"}}]}` + "\n\n"
	anStart      = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_one\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c1\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n"
	anPing       = "event: ping\ndata: {\"type\":\"ping\"}\n\n"
	anOverloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
)

// goodStream answers with a whole stream of the shape path asks for,
// its text "from two".
func goodStream(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/responses") {
		sseAnswer("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_two\",\"status\":\"in_progress\"}}\n\n"+
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"from two\"}\n\n"+
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_two\",\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":2,\"total_tokens\":5}}}\n\n")(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/messages") {
		sseAnswer("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_two\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c2\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"from two\"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")(w, r)
		return
	}
	sseAnswer(`data: {"id":"two","object":"chat.completion.chunk","model":"m2","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`+"\n\n"+
		`data: {"id":"two","object":"chat.completion.chunk","model":"m2","choices":[{"index":0,"delta":{"content":"from two"},"finish_reason":null}]}`+"\n\n"+
		`data: {"id":"two","object":"chat.completion.chunk","model":"m2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n"+
		`data: {"id":"two","object":"chat.completion.chunk","model":"m2","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`+"\n\n"+
		"data: [DONE]\n\n")(w, r)
}

func chatStreamBody(model string) string {
	return `{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`
}

func messagesStreamBody(model string) string {
	return `{"model":"` + model + `","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
}

// TestErrorFirstStreamFailsOver: a 200 stream whose first meaningful
// event is an error fails over to the route's next target, natively and
// translated, for chat and Messages clients; the client gets only the
// second target's stream, and both attempts are recorded.
func TestErrorFirstStreamFailsOver(t *testing.T) {
	for _, tc := range []struct {
		name, path, body, upstream string
		first, second              string // providers of the attempts
		errType                    string // the first attempt's error code
	}{
		{"chat native", "/v1/chat/completions", chatStreamBody("m1"), chatRoleOnly + chatErrorEv, "oa1", "oa2", "server_error"},
		{"messages native", "/v1/messages", messagesStreamBody("c1"), anStart + anPing + anOverloaded, "an1", "an2", "overloaded_error"},
		{"messages onto chat", "/v1/messages", messagesStreamBody("m1"), chatRoleOnly + chatErrorEv, "oa1", "oa2", "server_error"},
		{"responses native", "/v1/responses", `{"model":"m1","stream":true,"input":"hi"}`,
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"one\"}}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"the server is overloaded\"}\n\n",
			"oa1", "oa2", "server_error"},
		{"chat onto messages", "/v1/chat/completions", chatStreamBody("c1"), anStart + anPing + anOverloaded, "an1", "an2", "overloaded_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newHeadRig(t)
			rig.one.Store(sseAnswer(tc.upstream))
			rec, info := rig.serve(tc.path, tc.body)
			body := rec.Body.String()
			if rec.Code != http.StatusOK || !strings.Contains(body, "from two") {
				t.Fatalf("answer %d %q", rec.Code, body)
			}
			for _, bad := range []string{"overloaded", "Overloaded", `"one"`, "msg_one", `"error"`} {
				if strings.Contains(body, bad) {
					t.Errorf("the client got %q of the failed stream: %q", bad, body)
				}
			}
			if got := rec.Header().Get("X-Modelgate-Provider"); got != tc.second {
				t.Errorf("X-Modelgate-Provider = %q, want %q", got, tc.second)
			}
			at := info.Attempts()
			if len(at) != 2 || at[0].Provider != tc.first || at[1].Provider != tc.second {
				t.Fatalf("attempts %+v", at)
			}
			if at[0].StatusCode != 200 || at[0].Err == "" || at[0].ErrCode != tc.errType || len(at[0].ResponseBody) == 0 {
				t.Errorf("failed attempt %+v", at[0])
			}
			if at[1].Err != "" {
				t.Errorf("second attempt failed: %+v", at[1])
			}
			if _, ok := info.FirstToken(); !ok {
				t.Error("no first token was marked")
			}
		})
	}
}

// TestStreamAfterContentIsNotRetried: an error after content, an error
// failover does not cover, or one behind more contentless events than are
// held, reaches the client in its stream; the next target is never
// called.
func TestStreamAfterContentIsNotRetried(t *testing.T) {
	many := strings.Repeat(anPing, maxHeadEvents+1)
	for _, tc := range []struct {
		name, path, body, upstream, want string
	}{
		{"content then error", "/v1/chat/completions", chatStreamBody("m1"), chatRoleOnly + chatContent + chatErrorEv, "overloaded"},
		{"request error first", "/v1/messages", messagesStreamBody("c1"),
			anStart + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad request\"}}\n\n", "bad request"},
		{"past the bound", "/v1/messages", messagesStreamBody("c1"), anStart + many + anOverloaded, "Overloaded"},
		{"no route", "/v1/chat/completions", chatStreamBody("solo"), chatRoleOnly + chatErrorEv, "overloaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newHeadRig(t)
			rig.one.Store(sseAnswer(tc.upstream))
			rec, info := rig.serve(tc.path, tc.body)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("answer %d %q", rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), "from two") || rig.twoCalls.Load() != 0 {
				t.Fatal("the stream was retried")
			}
			if at := info.Attempts(); len(at) != 1 {
				t.Fatalf("attempts %+v", at)
			}
		})
	}
}

// TestHeldStreamRelaysWhole: a stream held for failover that turns out
// well reaches the client byte for byte, its held events included.
func TestHeldStreamRelaysWhole(t *testing.T) {
	rig := newHeadRig(t)
	up := anStart + anPing + strings.Repeat("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", 3) +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	rig.one.Store(sseAnswer(up))
	rec, info := rig.serve("/v1/messages", messagesStreamBody("c1"))
	if rec.Code != http.StatusOK || rec.Body.String() != up {
		t.Fatalf("answer %d %q", rec.Code, rec.Body)
	}
	if at := info.Attempts(); len(at) != 1 || at[0].Err != "" || rig.twoCalls.Load() != 0 {
		t.Fatalf("attempts %+v", at)
	}
}

// TestBrokenStreamBeforeContentFailsOver: an upstream that cuts its
// stream before any content fails over as an unreachable one does.
func TestBrokenStreamBeforeContentFailsOver(t *testing.T) {
	rig := newHeadRig(t)
	rig.one.Store(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chatRoleOnly)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	rec, info := rig.serve("/v1/chat/completions", chatStreamBody("m1"))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "from two") {
		t.Fatalf("answer %d %q", rec.Code, rec.Body)
	}
	if at := info.Attempts(); len(at) != 2 || at[0].ErrCode != "upstream_read_failed" {
		t.Fatalf("attempts %+v", at)
	}
}

func TestStreamErrorOf(t *testing.T) {
	s := &Service{}
	c := &call{provider: &stubProvider{name: "up"}}
	resp := &http.Response{Header: http.Header{}}
	for _, tc := range []struct {
		ev     string
		status int // 0: no error
		code   string
	}{
		{anOverloaded, 529, "overloaded_error"},
		{chatErrorEv, 500, "server_error"},
		{`data: {"error":{"message":"slow down","code":"rate_limit_exceeded"}}` + "\n\n", 429, "rate_limit_exceeded"},
		{"event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\"}\n\n", 500, "server_error"},
		{`data: {"error":{"message":"odd"}}` + "\n\n", 502, ""},
		{"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"no\"}}\n\n", 400, "invalid_request_error"},
		{chatRoleOnly, 0, ""},
		{`data: {"choices":[{"delta":{"content":"an error"}}]}` + "\n\n", 0, ""},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"error\"}}\n\n", 0, ""},
		{": error\n\n", 0, ""},
	} {
		e := s.streamErrorOf(c, resp, []byte(tc.ev))
		switch {
		case tc.status == 0 && e != nil:
			t.Errorf("%q: error %+v", tc.ev, e)
		case tc.status != 0 && (e == nil || e.StatusCode != tc.status):
			t.Errorf("%q: error %+v, want status %d", tc.ev, e, tc.status)
		case tc.status != 0 && tc.code != "" && (e.Code == nil || *e.Code != tc.code):
			t.Errorf("%q: code %v, want %q", tc.ev, e.Code, tc.code)
		}
	}
}
