package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// voiceWire is what the voice provider's API reference says, as recorded
// in the adapter's fixture.
func voiceWire(t *testing.T) gjson.Result {
	t.Helper()
	b, err := os.ReadFile("../internal/gateway/providers/testdata/elevenlabs_wire.json")
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

// voiceCall is one call the fake voice provider received.
type voiceCall struct {
	path, voice, outputFormat string
	body                      map[string]any
	form                      map[string][]string
	file                      []byte
}

// fakeVoiceProvider serves the voice provider's model listing,
// text-to-speech and speech-to-text endpoints as the fixture describes
// them, checking the credential header, and records every call.
type fakeVoiceProvider struct {
	*httptest.Server
	mu    sync.Mutex
	calls []voiceCall
}

func newFakeVoiceProvider(t *testing.T, key string) *fakeVoiceProvider {
	wire := voiceWire(t)
	f := &fakeVoiceProvider{}
	ttsPrefix := strings.TrimSuffix(wire.Get("text_to_speech.path").Str, "{voice_id}")
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.Get("auth_header").Str) != key || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"detail":{"status":"invalid_api_key","message":"Invalid API key"}}`)
			return
		}
		c := voiceCall{path: r.URL.Path}
		switch {
		case r.Method == "GET" && r.URL.Path == wire.Get("models_list.path").Str:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, wire.Get("models_answer_example").Raw)
			return
		case r.Method == "POST" && strings.HasPrefix(r.URL.Path, ttsPrefix):
			c.voice = strings.TrimPrefix(r.URL.Path, ttsPrefix)
			c.outputFormat = r.URL.Query().Get("output_format")
			if err := json.NewDecoder(r.Body).Decode(&c.body); err != nil || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "bad body", 400)
				return
			}
			if c.voice == "missing" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, wire.Get("error_answer_example").Raw)
				return
			}
			w.Header().Set("Content-Type", "audio/mpeg")
			_, _ = io.WriteString(w, "audio:"+c.outputFormat)
		case r.Method == "POST" && r.URL.Path == wire.Get("speech_to_text.path").Str:
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			file, _, err := r.FormFile("file")
			if err != nil {
				http.Error(w, "no file", 400)
				return
			}
			c.file, _ = io.ReadAll(file)
			c.form = r.MultipartForm.Value
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, wire.Get("speech_to_text_answer_example").Raw)
		default:
			http.NotFound(w, r)
			return
		}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeVoiceProvider) last(t *testing.T) voiceCall {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("the voice provider was not called")
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeVoiceProvider) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// startVoiceGateway starts a gateway with the voice provider "el" on a
// fake upstream and waits for its listing.
func startVoiceGateway(t *testing.T) (*gateway, *fakeVoiceProvider) {
	clearEnv(t)
	up := newFakeVoiceProvider(t, "xi-test-key")
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("el", "elevenlabs", "xi-test-key", up.URL))
	waitListed(t, g, masterKey, "scribe_v2", "eleven_multilingual_v2")
	return g, up
}

// TestVoiceProviderSpeech: the voice id goes in the path, response_format
// becomes the fixed output format, speed is clamped into 0.7–1.2 and the
// model becomes model_id; the audio comes back as sent.
func TestVoiceProviderSpeech(t *testing.T) {
	g, up := startVoiceGateway(t)
	wire := voiceWire(t)
	oa := openaiClient(g, masterKey)
	var ms []string
	for id := range owners(listModels(t, g, masterKey)) {
		ms = append(ms, id)
	}
	for _, id := range []string{"scribe_v2", "scribe_v1", "eleven_multilingual_v2", "eleven_flash_v2_5"} {
		if !strings.Contains(strings.Join(ms, ","), id) {
			t.Errorf("/v1/models lacks %s: %v", id, ms)
		}
	}
	if strings.Contains(strings.Join(ms, ","), "sts") {
		t.Errorf("a model that cannot speak is listed: %v", ms)
	}

	for _, tc := range []struct {
		format openai.AudioSpeechNewParamsResponseFormat
		want   string
	}{{"", "mp3"}, {"mp3", "mp3"}, {"opus", "opus"}, {"pcm", "pcm"}, {"wav", "wav"}} {
		p := speechParams("eleven_multilingual_v2", tc.format)
		p.Voice = openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("JBFqnCBsd6RMkjVDRZzb")}
		audio, _ := speak(t, oa, p)
		want := wire.Get("output_formats." + tc.want).Str
		c := up.last(t)
		if c.outputFormat != want || string(audio) != "audio:"+want || c.voice != "JBFqnCBsd6RMkjVDRZzb" ||
			c.body["model_id"] != "eleven_multilingual_v2" || c.body["text"] != "Hello from the gateway." || c.body["voice_settings"] != nil {
			t.Errorf("format %q: upstream %+v, audio %q", tc.format, c, audio)
		}
	}
	lo, hi := wire.Get("speed_range.0").Float(), wire.Get("speed_range.1").Float()
	for _, tc := range []struct{ speed, want float64 }{{4.0, hi}, {1.5, hi}, {1.0, 1.0}, {0.8, 0.8}, {0.25, lo}} {
		p := speechParams("el/eleven_flash_v2_5", "")
		p.Speed = openai.Float(tc.speed)
		speak(t, oa, p)
		c := up.last(t)
		vs, _ := c.body["voice_settings"].(map[string]any)
		if vs["speed"] != tc.want || c.body["model_id"] != "eleven_flash_v2_5" {
			t.Errorf("speed %v: upstream voice_settings %v model %v, want speed %v", tc.speed, vs, c.body["model_id"], tc.want)
		}
	}
	// An upstream error keeps its status and message.
	p := speechParams("eleven_flash_v2_5", "")
	p.Voice = openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("missing")}
	_, err := oa.Audio.Speech.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !strings.Contains(apiErr.Message, "voice with the given id was not found") {
		t.Errorf("upstream 404: %v", err)
	}
}

// TestVoiceProviderRefusals: every option the voice provider cannot honour
// is refused with invalid_request_error naming the field, before the
// provider is called; so are the text endpoints on its models.
func TestVoiceProviderRefusals(t *testing.T) {
	g, up := startVoiceGateway(t)
	n := up.count()
	speech := `{"model":"eleven_multilingual_v2","input":"hi","voice":"JBFqnCBsd6RMkjVDRZzb"`
	for _, tc := range []struct{ body, param, code string }{
		{speech + `,"response_format":"aac"}`, "response_format", "unsupported_feature"},
		{speech + `,"response_format":"flac"}`, "response_format", "unsupported_feature"},
		{speech + `,"instructions":"Speak slowly."}`, "instructions", "unsupported_feature"},
		{speech + `,"stream_format":"sse"}`, "stream_format", "unsupported_feature"},
		{`{"model":"eleven_multilingual_v2","input":"hi"}`, "voice", "missing_required_parameter"},
		{`{"model":"scribe_v2","input":"hi","voice":"JBFqnCBsd6RMkjVDRZzb"}`, "model", "unsupported_endpoint"},
	} {
		e := request(t, "POST", g.URL+"/v1/audio/speech", tc.body, bearer(masterKey)...).
			ExpectErr(t, http.StatusBadRequest, "invalid_request_error", tc.code)
		if e.Param == nil || *e.Param != tc.param {
			t.Errorf("%s: param %v, want %s", tc.body, orNull(e.Param), tc.param)
		}
	}
	for _, tc := range []struct {
		fields      map[string]string
		param, code string
	}{
		{map[string]string{"model": "scribe_v2", "response_format": "srt"}, "response_format", "unsupported_feature"},
		{map[string]string{"model": "scribe_v2", "response_format": "vtt"}, "response_format", "unsupported_feature"},
		{map[string]string{"model": "scribe_v1", "prompt": "Names: Modelgate"}, "prompt", "unsupported_feature"},
		{map[string]string{"model": "eleven_multilingual_v2"}, "model", "unsupported_endpoint"},
	} {
		body, ct := multipartBody(t, tc.fields)
		res := sendForm(t, g, body, ct)
		ge := res.ExpectErr(t, http.StatusBadRequest, "invalid_request_error", tc.code)
		if ge.Param == nil || *ge.Param != tc.param {
			t.Errorf("%v: param %v, want %s", tc.fields, orNull(ge.Param), tc.param)
		}
	}
	for _, tc := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"eleven_multilingual_v2","messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/responses", `{"model":"eleven_multilingual_v2","input":"hi"}`},
		{"/v1/embeddings", `{"model":"eleven_multilingual_v2","input":"hi"}`},
		{"/v1/messages", `{"model":"scribe_v2","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`},
	} {
		res := request(t, "POST", g.URL+tc.path, tc.body, bearer(masterKey)...)
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "invalid_request_error") {
			t.Errorf("%s on the voice provider: %d %s", tc.path, res.Status, res.Body)
		}
	}
	if up.count() != n {
		t.Errorf("refused requests reached the voice provider (%d calls)", up.count()-n)
	}
}

// sendForm posts a multipart transcription body.
func sendForm(t *testing.T, g *gateway, body, ct string) response {
	t.Helper()
	req, _ := http.NewRequest("POST", g.URL+"/v1/audio/transcriptions", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+masterKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

// TestVoiceProviderTranscription: the model becomes model_id, word
// timings are asked for (timestamps_granularity word) only when the
// granularities contain word or the format is verbose_json, and the
// provider's words of type word become OpenAI's words array.
func TestVoiceProviderTranscription(t *testing.T) {
	g, up := startVoiceGateway(t)
	oa := openaiClient(g, masterKey)
	ctx := context.Background()
	file := func() openai.AudioTranscriptionNewParams {
		return openai.AudioTranscriptionNewParams{File: openai.File(bytes.NewReader(fakeAudio), "a.wav", "audio/wav"), Model: "scribe_v2"}
	}

	tr, err := oa.Audio.Transcriptions.New(ctx, file())
	if err != nil || tr.Text != "Hello world!" || len(tr.Words) != 0 {
		t.Fatalf("json: %+v %v", tr, err)
	}
	c := up.last(t)
	if first(c.form["model_id"]) != "scribe_v2" || first(c.form["timestamps_granularity"]) != "none" ||
		!bytes.Equal(c.file, fakeAudio) || c.form["model"] != nil {
		t.Errorf("json: upstream form %v, file %d bytes", c.form, len(c.file))
	}

	p := file()
	p.TimestampGranularities = []string{"word"}
	p.Language = openai.String("en")
	tr, err = oa.Audio.Transcriptions.New(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	c = up.last(t)
	if first(c.form["timestamps_granularity"]) != "word" || first(c.form["language_code"]) != "en" {
		t.Errorf("word: upstream form %v", c.form)
	}
	if len(tr.Words) != 2 || tr.Words[0].Word != "Hello" || tr.Words[0].Start != 0.12 || tr.Words[1].Word != "world!" || tr.Words[1].End != 1.04 {
		t.Errorf("words %+v", tr.Words)
	}

	p = file()
	p.Model = "el/scribe_v1"
	p.ResponseFormat = openai.AudioResponseFormatVerboseJSON
	tr, err = oa.Audio.Transcriptions.New(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	c = up.last(t)
	if first(c.form["model_id"]) != "scribe_v1" || first(c.form["timestamps_granularity"]) != "word" {
		t.Errorf("verbose_json: upstream form %v", c.form)
	}
	if len(tr.Words) != 2 || tr.Language != "en" || tr.Duration != 1.6 || tr.Text != "Hello world!" {
		t.Errorf("verbose_json: %+v", tr)
	}

	body, ct := multipartBody(t, map[string]string{"model": "scribe_v2", "response_format": "text"})
	res := sendForm(t, g, body, ct)
	if res.Status != 200 || string(res.Body) != "Hello world!\n" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("text: %d %q %s", res.Status, res.Body, res.Header.Get("Content-Type"))
	}
}
