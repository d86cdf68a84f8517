package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// wire is the recorded description of the voice provider's API.
func wire(t *testing.T) gjson.Result {
	t.Helper()
	b, err := os.ReadFile("testdata/elevenlabs_wire.json")
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(b)
}

func TestElevenLabsSpeechMapping(t *testing.T) {
	w := wire(t)
	lo, hi := w.Get("speed_range.0").Float(), w.Get("speed_range.1").Float()
	for _, tc := range []struct {
		body, format string
		speed        float64 // 0: no voice_settings
	}{
		{`{"input":"hi","voice":"v1"}`, "mp3", 0},
		{`{"input":"hi","voice":"v1","response_format":"opus","speed":9}`, "opus", hi},
		{`{"input":"hi","voice":{"id":"v1"},"response_format":"pcm","speed":0.1}`, "pcm", lo},
		{`{"input":"hi","voice":"v1","response_format":"wav","speed":1.1,"instructions":null}`, "wav", 1.1},
	} {
		sr, err := mapSpeech([]byte(tc.body), "eleven_v3")
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		var b map[string]any
		_ = json.Unmarshal(sr.body, &b)
		vs, _ := b["voice_settings"].(map[string]any)
		if sr.voice != "v1" || sr.outputFormat != w.Get("output_formats."+tc.format).Str || b["model_id"] != "eleven_v3" ||
			b["text"] != "hi" || (tc.speed == 0) != (vs == nil) || (vs != nil && vs["speed"] != tc.speed) {
			t.Errorf("%s: %+v %s", tc.body, sr, sr.body)
		}
	}
	for _, tc := range []struct{ body, param string }{
		{`{"input":"hi","voice":"v1","response_format":"aac"}`, "response_format"},
		{`{"input":"hi","voice":"v1","response_format":"flac"}`, "response_format"},
		{`{"input":"hi","voice":"v1","instructions":""}`, "instructions"},
		{`{"input":"hi","voice":"v1","stream_format":"sse"}`, "stream_format"},
		{`{"input":"hi","voice":"v1","speed":"fast"}`, "speed"},
		{`{"input":"hi"}`, "voice"},
		{`{"voice":"v1"}`, "input"},
	} {
		_, err := mapSpeech([]byte(tc.body), "m")
		var re *RequestError
		if !errors.As(err, &re) || re.Param != tc.param {
			t.Errorf("%s: %v, want a refusal of %s", tc.body, err, tc.param)
		}
	}
	p := &ElevenLabs{}
	if err := p.CheckJSON(EndpointChat, []byte(`{}`)); err == nil {
		t.Error("chat accepted")
	}
}

func TestElevenLabsTranscriptMapping(t *testing.T) {
	raw := []byte(wire(t).Get("speech_to_text_answer_example").Raw)
	out, ct, err := mapTranscript(raw, "json", false)
	if err != nil || ct != "application/json" || gjson.GetBytes(out, "text").Str != "Hello world!" || gjson.GetBytes(out, "words").Exists() {
		t.Errorf("json: %s %s %v", out, ct, err)
	}
	out, _, _ = mapTranscript(raw, "json", true)
	if words := gjson.GetBytes(out, "words").Array(); len(words) != 2 || words[1].Get("word").Str != "world!" ||
		words[1].Get("start").Float() != 0.52 || words[1].Get("end").Float() != 1.04 {
		t.Errorf("words: %s", out)
	}
	out, _, _ = mapTranscript(raw, "verbose_json", true)
	if gjson.GetBytes(out, "language").Str != "en" || gjson.GetBytes(out, "duration").Float() != 1.6 ||
		gjson.GetBytes(out, "task").Str != "transcribe" || gjson.GetBytes(out, "usage.seconds").Float() != 1.6 {
		t.Errorf("verbose: %s", out)
	}
	out, ct, _ = mapTranscript(raw, "text", false)
	if string(out) != "Hello world!\n" || !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("text: %q %s", out, ct)
	}
	if _, _, err := mapTranscript([]byte(`{"detail":"x"}`), "json", false); err == nil {
		t.Error("an answer without text was mapped")
	}
}

func TestElevenLabsTranscriptionChecks(t *testing.T) {
	p := &ElevenLabs{}
	for _, tc := range []struct {
		fields []FormField
		param  string
	}{
		{[]FormField{{"response_format", "srt"}}, "response_format"},
		{[]FormField{{"response_format", "vtt"}}, "response_format"},
		{[]FormField{{"prompt", ""}}, "prompt"},
		{[]FormField{{"stream", "true"}}, "stream"},
		{[]FormField{{"response_format", "verbose_json"}, {"timestamp_granularities[]", "word"}}, ""},
	} {
		err := p.CheckTranscription(&TranscriptionForm{Fields: tc.fields})
		var re *RequestError
		if (tc.param == "") != (err == nil) || (err != nil && (!errors.As(err, &re) || re.Param != tc.param)) {
			t.Errorf("%v: %v", tc.fields, err)
		}
	}
	if !wantsWords(&TranscriptionForm{Fields: []FormField{{"timestamp_granularities[]", "segment"}, {"timestamp_granularities[]", "word"}}}) ||
		wantsWords(&TranscriptionForm{Fields: []FormField{{"timestamp_granularities[]", "segment"}}}) {
		t.Error("wantsWords")
	}
}

// TestElevenLabsListing: the speaking models of the listing, plus the
// speech-to-text models it lacks.
func TestElevenLabsListing(t *testing.T) {
	w := wire(t)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != w.Get("models_list.path").Str || r.Header.Get("Xi-Api-Key") != "k" {
			http.NotFound(rw, r)
			return
		}
		_, _ = io.WriteString(rw, w.Get("models_answer_example").Raw)
	}))
	defer srv.Close()
	p, err := New(Options{Name: "el", Type: "elevenlabs", BaseURL: srv.URL, APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.ListModels(context.Background())
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if err != nil || strings.Join(ids, ",") != "eleven_multilingual_v2,eleven_flash_v2_5,scribe_v2,scribe_v1" {
		t.Errorf("listing %v %v", ids, err)
	}
}

// TestRelayHeaders: the adapter's credential replaces any the request
// carries; its other headers only fill what the client left out.
func TestRelayHeaders(t *testing.T) {
	var got http.Header
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got, path = r.Header, r.URL.RequestURI()
	}))
	defer srv.Close()
	p, _ := New(Options{Name: "a", Type: "anthropic", BaseURL: srv.URL + "/v1", APIKey: "secret", Client: srv.Client(), UserAgent: "mg"})
	r := p.(Relayer)
	resp, err := r.Relay(context.Background(), RawRequest{Method: "GET", Path: "models", RawQuery: "limit=2",
		Header: http.Header{"X-Api-Key": {"client"}, "Anthropic-Version": {"2099-01-01"}}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if path != "/v1/models?limit=2" || got.Get("X-Api-Key") != "secret" || got.Get("Anthropic-Version") != "2099-01-01" ||
		got.Get("User-Agent") != "mg" || r.AuthHeader() != "x-api-key" || r.BaseURL() != srv.URL+"/v1" {
		t.Errorf("relayed %s %v", path, got)
	}
}

// TestElevenLabsSpeechRefusalCodes: a required field left out is
// missing_required_parameter, one of the wrong type invalid_value, an
// unsupported one unsupported_feature (no code of its own).
func TestElevenLabsSpeechRefusalCodes(t *testing.T) {
	for body, want := range map[string][2]string{
		`{"voice":"v1"}`:                                 {"input", CodeMissingParameter},
		`{"voice":"v1","input":""}`:                      {"input", CodeMissingParameter},
		`{"voice":"v1","input":5}`:                       {"input", CodeInvalidValue},
		`{"input":"hi"}`:                                 {"voice", CodeMissingParameter},
		`{"voice":7,"input":"hi"}`:                       {"voice", CodeInvalidValue},
		`{"voice":"v1","input":"hi","speed":"fast"}`:     {"speed", CodeInvalidValue},
		`{"voice":"v1","input":"hi","instructions":"x"}`: {"instructions", ""},
	} {
		_, err := mapSpeech([]byte(body), "eleven_v3")
		var re *RequestError
		if !errors.As(err, &re) || re.Param != want[0] || re.Code != want[1] {
			t.Errorf("%s: %v, want %s %q", body, err, want[0], want[1])
		}
	}
}

// TestElevenLabsCheckModel: speech-to-text models transcribe only, the
// others speak only.
func TestElevenLabsCheckModel(t *testing.T) {
	p := &ElevenLabs{}
	for _, c := range []struct {
		ep    Endpoint
		model string
		ok    bool
	}{
		{EndpointSpeech, "eleven_multilingual_v2", true},
		{EndpointSpeech, "scribe_v2", false},
		{EndpointTranscriptions, "scribe_v2", true},
		{EndpointTranscriptions, "scribe_v1", true},
		{EndpointTranscriptions, "eleven_multilingual_v2", false},
	} {
		err := p.CheckModel(c.ep, c.model)
		var re *RequestError
		if (err == nil) != c.ok || (err != nil && (!errors.As(err, &re) || re.Code != CodeUnsupportedEndpoint || re.Param != "model")) {
			t.Errorf("%s %s: %v", c.ep, c.model, err)
		}
	}
}
