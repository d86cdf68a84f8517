package proxy

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TestAudioAndPassthroughBudgets: with a spent budget recorded on the
// request, speech, transcription and passthrough calls to a priced model
// are refused once the model is known, without reaching the upstream, and
// so is a passthrough call that names no model but may run one (a form);
// a passthrough read (GET) that names no model is served.
func TestAudioAndPassthroughBudgets(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	defer srv.Close()
	p, err := providers.New(providers.Options{Name: "oai", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"tts-1", "gpt-4o-transcribe"}, Allowlist: true}},
		providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg.Start(ctx)
	<-reg.Ready()
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Passthrough: Passthrough{Enabled: []string{"oai"}}}
	spent := apierr.New(http.StatusTooManyRequests, apierr.TypeRateLimit, "budget exceeded").WithCode("budget_exceeded")

	formCT, form := transcriptionForm("model", "gpt-4o-transcribe")

	send := func(method, path, ct, body string) (*httptest.ResponseRecorder, *reqinfo.Info) {
		info := reqinfo.New()
		info.BudgetExceeded = spent
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req = req.WithContext(reqinfo.With(req.Context(), info))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec, info
	}
	for _, tc := range []struct{ method, path, ct, body string }{
		{"POST", "/v1/audio/speech", "application/json", `{"model":"tts-1","input":"hi","voice":"alloy"}`},
		{"POST", "/v1/audio/transcriptions", formCT, form},
		{"POST", "/p/oai/v1/audio/speech", "application/json", `{"model":"tts-1","input":"hi","voice":"alloy"}`},
		{"POST", "/p/oai/v1/audio/transcriptions", formCT, form},
	} {
		rec, info := send(tc.method, tc.path, tc.ct, tc.body)
		if rec.Code != 429 || !strings.Contains(rec.Body.String(), "budget_exceeded") || !info.RefusedBeforeUpstream {
			t.Errorf("%s: %d %s", tc.path, rec.Code, rec.Body)
		}
	}
	if calls.Load() != 0 {
		t.Fatalf("the upstream was called %d times", calls.Load())
	}
	if rec, _ := send("GET", "/p/oai/models", "", ""); rec.Code != 200 || calls.Load() != 1 {
		t.Errorf("passthrough without a model: %d %s", rec.Code, rec.Body)
	}
}

// TestPassthroughPaths: the upstream path of a passthrough request, and
// the requests refused before any upstream.
func TestPassthroughPaths(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.EscapedPath())
	}))
	defer srv.Close()
	mk := func(name, typ, base string) providers.Entry {
		p, err := providers.New(providers.Options{Name: name, Type: typ, BaseURL: base, APIKey: "k", Client: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		return providers.Entry{Provider: p, Models: []string{"x"}, Allowlist: true}
	}
	reg := providers.NewRegistry([]providers.Entry{mk("oai", "openai", srv.URL+"/v1"), mk("el", "elevenlabs", srv.URL),
		mk("off", "openai", srv.URL+"/v1")}, providers.RegistryOptions{})
	s := &Service{Registry: reg, Passthrough: Passthrough{Enabled: []string{"oai", "elevenlabs"}}}
	for _, tc := range []struct {
		path   string
		status int
		up     string
	}{
		{"/p/oai/v1/models", 200, "/v1/models"},
		{"/p/oai/models", 200, "/v1/models"},
		{"/p/openai/v1/files/a%20b", 200, "/v1/files/a%20b"}, // the type names its first instance
		{"/p/el/v2/voices", 200, "/v2/voices"},
		{"/p/elevenlabs/v1/voices", 404, ""},
		{"/p/off/v1/models", 404, ""},
		{"/p/oai/v1/a%20b/c", 200, "/v1/a%20b/c"},
		{"/p/oai/..", 400, ""},
		{"/p/oai/v1/%2E%2e/x", 400, ""},
		{"/p/oai/a%2Fb", 400, ""},
		{"/p/oai/a%5Cb", 400, ""},
	} {
		seen = nil
		req := httptest.NewRequest("GET", "http://gw/", nil)
		req.URL.RawPath, req.URL.Path = tc.path, mustUnescape(tc.path)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		got := ""
		if len(seen) > 0 {
			got = seen[0]
		}
		if rec.Code != tc.status || got != tc.up {
			t.Errorf("%s: %d upstream %q, want %d %q: %s", tc.path, rec.Code, got, tc.status, tc.up, rec.Body)
		}
	}
}

// mustUnescape decodes a path as a server does.
func mustUnescape(p string) string {
	d, err := url.PathUnescape(p)
	if err != nil {
		panic(err)
	}
	return d
}

// TestPassthroughDuplicateModel: a JSON body naming its model twice is
// refused before the upstream sees it, as on the model endpoints, so that
// model limits and budgets apply to the model the upstream runs.
func TestPassthroughDuplicateModel(t *testing.T) {
	called := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called++ }))
	defer srv.Close()
	p, err := providers.New(providers.Options{Name: "oai", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"x"}, Allowlist: true}}, providers.RegistryOptions{})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Passthrough: Passthrough{Enabled: []string{"oai"}}}
	for body, want := range map[string]int{`{"model":"x","model":"y"}`: 400, `{"model":"x"}`: 200} {
		req := httptest.NewRequest("POST", "/p/oai/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		before := called
		s.ServeHTTP(rec, req)
		if rec.Code != want || (want == 400 && (called != before || !strings.Contains(rec.Body.String(), "duplicate_field"))) {
			t.Errorf("%s: %d, upstream called %d times: %s", body, rec.Code, called-before, rec.Body)
		}
	}
}

// TestAudioCost: a speech request is priced by the characters of its
// input and a transcription by the seconds its answer reports, from the
// catalog (tts-1 per character, whisper-1 per second); an answer without
// a duration leaves the cost unknown.
func TestAudioCost(t *testing.T) {
	var answer atomic.Value
	answer.Store(`{"text":"hi","usage":{"type":"duration","seconds":12.5}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/audio/speech") {
			w.Header().Set("Content-Type", "audio/mpeg")
			_, _ = w.Write([]byte("ID3audio"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer.Load().(string)))
	}))
	defer srv.Close()
	s := openAIService(t, srv, "tts-1", "whisper-1")
	send := func(path, ct, body string) *reqinfo.Info {
		t.Helper()
		info := reqinfo.New()
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req = req.WithContext(reqinfo.With(req.Context(), info))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		return info
	}
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

	// 10 characters, "é" and "世" one each.
	info := send("/v1/audio/speech", "application/json", `{"model":"tts-1","input":"héllo 世界!!","voice":"alloy"}`)
	if c, ok := info.Cost(); !ok || !near(c.Total, 10*1.5e-5) {
		t.Errorf("speech cost %v %v, want %v", c.Total, ok, 10*1.5e-5)
	}

	form := func() (string, string) { return transcriptionForm("model", "whisper-1") }
	ct, body := form()
	info = send("/v1/audio/transcriptions", ct, body)
	if c, ok := info.Cost(); !ok || !near(c.Total, 12.5*1e-4) {
		t.Errorf("transcription cost %v %v, want %v", c.Total, ok, 12.5*1e-4)
	}
	answer.Store(`{"task":"transcribe","duration":3,"text":"hi"}`)
	ct, body = form()
	if c, ok := send("/v1/audio/transcriptions", ct, body).Cost(); !ok || !near(c.Total, 3*1e-4) {
		t.Errorf("verbose transcription cost %v %v", c.Total, ok)
	}
	answer.Store(`{"text":"hi"}`)
	ct, body = form()
	if c, ok := send("/v1/audio/transcriptions", ct, body).Cost(); ok {
		t.Errorf("transcription without a duration priced at %v", c.Total)
	}
}

// TestPassthroughErrorRedacted: a passthrough error answer that quotes a
// configured provider key reaches the client with the key removed, JSON
// or not; a success passes unchanged.
func TestPassthroughErrorRedacted(t *testing.T) {
	const key = "sk-upstream-SECRET-123"
	var status atomic.Int32
	var ct atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct.Load().(string))
		w.WriteHeader(int(status.Load()))
		_, _ = io.WriteString(w, `{"error":{"message":"internal boom `+key+`"}}`)
	}))
	defer srv.Close()
	p, err := providers.New(providers.Options{Name: "oai", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: key, Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"x"}, Allowlist: true}}, providers.RegistryOptions{})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Passthrough: Passthrough{Enabled: []string{"oai"}},
		Upstreams: NewUpstreams(nil, []string{key})}
	for _, tc := range []struct {
		status int
		ct     string
	}{{500, "application/json"}, {500, "text/html"}, {404, "text/plain"}} {
		status.Store(int32(tc.status))
		ct.Store(tc.ct)
		req := httptest.NewRequest("GET", "/p/oai/v1/models", nil)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != tc.status || strings.Contains(rec.Body.String(), key) || !strings.Contains(rec.Body.String(), "internal boom [redacted]") {
			t.Errorf("%d %s: %d %s", tc.status, tc.ct, rec.Code, rec.Body)
		}
	}
}

// TestAudioRelayedAsItArrives: speech audio and a streamed transcription
// reach the client while the upstream is still sending (the upstream
// sends its second part only once the client has the first), and the
// transcription's closing event leaves its usage; the speech request is
// priced by its input's characters.
func TestAudioRelayedAsItArrives(t *testing.T) {
	gotFirst := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var first, rest string
		switch {
		case strings.HasSuffix(r.URL.Path, "/audio/speech"):
			w.Header().Set("Content-Type", "audio/mpeg")
			first, rest = "ID3-part-one", "-part-two"
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			first = "data: {\"type\":\"transcript.text.delta\",\"delta\":\"The\"}\n\n"
			rest = "data: {\"type\":\"transcript.text.done\",\"text\":\"The end\",\"usage\":{\"type\":\"tokens\",\"input_tokens\":14,\"output_tokens\":3,\"total_tokens\":17}}\n\n"
		}
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-gotFirst:
		case <-time.After(10 * time.Second):
			return // the gateway held the first part back
		}
		_, _ = io.WriteString(w, rest)
	}))
	defer srv.Close()
	s := openAIService(t, srv, "tts-1", "gpt-4o-transcribe")
	var info *reqinfo.Info
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info = reqinfo.New()
		s.ServeHTTP(w, r.WithContext(reqinfo.With(r.Context(), info)))
	}))
	defer gw.Close()
	call := func(path, ct, body, first string) string {
		t.Helper()
		resp, err := http.Post(gw.URL+path, ct, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, len(first))
		if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != first {
			t.Fatalf("%s: first part %q %v", path, buf, err)
		}
		gotFirst <- struct{}{}
		rest, _ := io.ReadAll(resp.Body)
		return string(buf) + string(rest)
	}
	if got := call("/v1/audio/speech", "application/json", `{"model":"tts-1","input":"hello","voice":"alloy"}`, "ID3-part-one"); got != "ID3-part-one-part-two" {
		t.Errorf("speech: %q", got)
	}
	if c, ok := info.Cost(); !ok || c.Total-5*1.5e-5 > 1e-12 || 5*1.5e-5-c.Total > 1e-12 {
		t.Errorf("speech cost %v %v", c.Total, ok)
	}

	ct, form := transcriptionForm("model", "gpt-4o-transcribe", "stream", "true")
	got := call("/v1/audio/transcriptions", ct, form, "data: {\"type\":\"transcript.text.delta\",\"delta\":\"The\"}\n\n")
	if !strings.Contains(got, "transcript.text.done") {
		t.Errorf("transcription stream: %q", got)
	}
	if u, ok := info.Usage(); !ok || u.InputTokens != 14 || u.OutputTokens != 3 || !info.Stream {
		t.Errorf("transcription usage %+v %v, stream %v", u, ok, info.Stream)
	}
}

// TestVoiceTranscriptCutShort: a voice-provider transcript that breaks off
// is an answer the gateway could not read (502 upstream_read_failed), not
// an unreachable upstream.
func TestVoiceTranscriptCutShort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			_, _ = io.WriteString(w, `[]`)
			return
		}
		_, _ = io.WriteString(w, `{"language_code":"en","text":"The qu`)
	}))
	defer srv.Close()
	p, err := providers.New(providers.Options{Name: "el", Type: "elevenlabs", BaseURL: srv.URL, APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"scribe_v2"}, Allowlist: true}}, providers.RegistryOptions{})
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	ct, form := transcriptionForm("model", "scribe_v2")
	info := reqinfo.New()
	req := httptest.NewRequest("POST", "/v1/audio/transcriptions", strings.NewReader(form))
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req.WithContext(reqinfo.With(req.Context(), info)))
	if rec.Code != 502 || !strings.Contains(rec.Body.String(), `"upstream_read_failed"`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

// openAIService returns a Service over one openai provider, oai, at
// srv's /v1, serving models, its listing ready.
func openAIService(t *testing.T, srv *httptest.Server, models ...string) *Service {
	t.Helper()
	p, err := providers.New(providers.Options{Name: "oai", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: models, Allowlist: true}}, providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reg.Start(ctx)
	<-reg.Ready()
	return &Service{Registry: reg, MaxBodyBytes: 1 << 20}
}

// transcriptionForm returns the content type and body of a transcription
// form: the fields, given as name and value pairs, and a file a.wav.
func transcriptionForm(fields ...string) (string, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = mw.WriteField(fields[i], fields[i+1])
	}
	fw, _ := mw.CreateFormFile("file", "a.wav")
	_, _ = fw.Write([]byte("audio"))
	_ = mw.Close()
	return mw.FormDataContentType(), b.String()
}
