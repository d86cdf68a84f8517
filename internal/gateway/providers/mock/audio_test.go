package mock

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSpeechFormats(t *testing.T) {
	wav := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy","response_format":"wav"}`)
	b := wav.Body.Bytes()
	if wav.Code != 200 || wav.Header().Get("Content-Type") != "audio/wav" || string(b[:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " {
		t.Fatalf("wav %d %q", wav.Code, b[:16])
	}
	if n := binary.LittleEndian.Uint32(b[40:]); int(n) != len(b)-44 || n != 2*speechSampleRate*(speechBaseMS+5*speechPerRuneMS)/1000 {
		t.Errorf("wav data size %d of %d bytes", n, len(b))
	}
	pcm := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy","response_format":"pcm"}`)
	if !bytes.Equal(pcm.Body.Bytes(), b[44:]) {
		t.Error("pcm is not the wav's samples")
	}
	mp3 := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"hello","voice":"alloy"}`)
	m := mp3.Body.Bytes()
	if mp3.Header().Get("Content-Type") != "audio/mpeg" || len(m)%mp3FrameBytes != 0 || !bytes.Equal(m[:4], mp3FrameHeader[:]) ||
		!bytes.Equal(m[mp3FrameBytes:mp3FrameBytes+4], mp3FrameHeader[:]) {
		t.Errorf("mp3 %d bytes %x", len(m), m[:4])
	}
	for body, code := range map[string]int{
		`{"model":"mock-chat","input":"a","voice":"v"}`:                         404,
		`{"model":"mock-tts","voice":"v"}`:                                      400,
		`{"model":"mock-tts","input":"a"}`:                                      400,
		`{"model":"mock-tts","input":"a","voice":"v","response_format":"flac"}`: 400,
	} {
		if r := do(t, Options{}, "POST", "/v1/audio/speech", body); r.Code != code {
			t.Errorf("%s: %d, want %d", body, r.Code, code)
		}
	}
}

func form(t *testing.T, fields map[string]string, file bool) (string, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if file {
		fw, _ := mw.CreateFormFile("file", "a.wav")
		_, _ = fw.Write(make([]byte, 640))
	}
	_ = mw.Close()
	return b.String(), mw.FormDataContentType()
}

func transcribe(t *testing.T, fields map[string]string, file bool) *httptest.ResponseRecorder {
	body, ct := form(t, fields, file)
	req := httptest.NewRequest("POST", "/v1/audio/transcriptions", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	NewHandler(Options{}).ServeHTTP(rec, req)
	return rec
}

func TestTranscriptionFormats(t *testing.T) {
	r := transcribe(t, map[string]string{"model": "mock-transcribe"}, true)
	j := mustJSON(t, r.Body.String())
	if j.Get("text").Str != "The quick brown fox jumps over the lazy dog." || j.Get("words").Exists() ||
		j.Get("usage.input_tokens").Int() != 11 || j.Get("usage.output_tokens").Int() != 9 {
		t.Errorf("json %s", r.Body)
	}
	r = transcribe(t, map[string]string{"model": "mock-transcribe", "response_format": "verbose_json", "timestamp_granularities[]": "word"}, true)
	j = mustJSON(t, r.Body.String())
	if w := j.Get("words").Array(); len(w) != 9 || w[8].Get("end").Float() != 3.6 || j.Get("duration").Float() != 3.6 {
		t.Errorf("verbose %s", r.Body)
	}
	r = transcribe(t, map[string]string{"model": "mock-transcribe", "response_format": "text"}, true)
	if r.Body.String() != "The quick brown fox jumps over the lazy dog.\n" {
		t.Errorf("text %q", r.Body)
	}
	r = transcribe(t, map[string]string{"model": "mock-transcribe", "response_format": "vtt"}, true)
	if !strings.HasPrefix(r.Body.String(), "WEBVTT\n\n00:00:00.000 --> 00:00:03.600\n") {
		t.Errorf("vtt %q", r.Body)
	}
	if r := transcribe(t, map[string]string{"model": "mock-transcribe"}, false); r.Code != 400 {
		t.Errorf("no file: %d", r.Code)
	}
	if r := transcribe(t, map[string]string{"model": "mock-tts"}, true); r.Code != 404 {
		t.Errorf("speech model: %d", r.Code)
	}
	if r := do(t, Options{}, "POST", "/v1/audio/transcriptions", `{"model":"mock-transcribe"}`); r.Code != http.StatusBadRequest {
		t.Errorf("json body: %d", r.Code)
	}
}

// TestAudioStreams: speech with stream_format sse is its audio in base64
// delta events and a done event with usage; a transcription with
// stream=true is one delta per word and a done event with the text and
// usage.
func TestAudioStreams(t *testing.T) {
	whole := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"hello there","voice":"alloy","response_format":"pcm"}`)
	r := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"hello there","voice":"alloy","response_format":"pcm","stream_format":"sse"}`)
	if r.Code != 200 || r.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("speech stream %d %s", r.Code, r.Header())
	}
	events := sseEvents(t, r.Body.String())
	var audio []byte
	for _, ev := range events[:len(events)-1] {
		j := mustJSON(t, ev)
		b, err := base64.StdEncoding.DecodeString(j.Get("audio").Str)
		if j.Get("type").Str != "speech.audio.delta" || err != nil {
			t.Fatalf("delta %s", ev)
		}
		audio = append(audio, b...)
	}
	done := mustJSON(t, events[len(events)-1])
	if !bytes.Equal(audio, whole.Body.Bytes()) || len(events) < 3 || done.Get("type").Str != "speech.audio.done" ||
		done.Get("usage.total_tokens").Int() != done.Get("usage.input_tokens").Int()+done.Get("usage.output_tokens").Int() {
		t.Errorf("speech stream of %d events, %d audio bytes, done %s", len(events), len(audio), done.Raw)
	}
	if r := do(t, Options{}, "POST", "/v1/audio/speech", `{"model":"mock-tts","input":"a","voice":"v","stream_format":"mp4"}`); r.Code != 400 {
		t.Errorf("bad stream_format: %d", r.Code)
	}

	tr := transcribe(t, map[string]string{"model": "mock-transcribe", "stream": "true"}, true)
	events = sseEvents(t, tr.Body.String())
	var text string
	for _, ev := range events[:len(events)-1] {
		text += mustJSON(t, ev).Get("delta").Str
	}
	done = mustJSON(t, events[len(events)-1])
	if text != "The quick brown fox jumps over the lazy dog." || done.Get("type").Str != "transcript.text.done" ||
		done.Get("text").Str != text || done.Get("usage.output_tokens").Int() != 9 {
		t.Errorf("transcript stream %q, done %s", text, done.Raw)
	}
}
