package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// speechParams is a speech request for model in format.
func speechParams(model string, format openai.AudioSpeechNewParamsResponseFormat) openai.AudioSpeechNewParams {
	return openai.AudioSpeechNewParams{Model: model, Input: "Hello from the gateway.",
		Voice: openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("alloy")}, ResponseFormat: format}
}

// speak sends a speech request with the SDK and returns the audio and
// its Content-Type.
func speak(t *testing.T, oa openai.Client, p openai.AudioSpeechNewParams, opts ...option.RequestOption) ([]byte, string) {
	t.Helper()
	resp, err := oa.Audio.Speech.New(context.Background(), p, opts...)
	if err != nil {
		t.Fatalf("speech %s: %v", p.ResponseFormat, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, resp.Header.Get("Content-Type")
}

// fakeAudio is a few bytes standing for an audio file.
var fakeAudio = bytes.Repeat([]byte("RIFF-audio-bytes"), 40)

// TestAudioOnMock: both audio endpoints answer offline on the mock
// provider through the official SDK: valid WAV and MP3 bytes, a fixed
// transcript with word timings, usage recorded for the transcription.
func TestAudioOnMock(t *testing.T) {
	g := startMockGateway(t)
	oa := openaiClient(g, masterKey)
	ctx := context.Background()

	wav, ct := speak(t, oa, speechParams("mock-tts", openai.AudioSpeechNewParamsResponseFormatWAV))
	if ct != "audio/wav" || len(wav) < 44 || string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" {
		t.Fatalf("wav: %s %d bytes %q", ct, len(wav), wav[:min(12, len(wav))])
	}
	mp3, ct := speak(t, oa, speechParams("mock-tts", ""))
	if ct != "audio/mpeg" || len(mp3) < 417 || mp3[0] != 0xFF || mp3[1]&0xE0 != 0xE0 {
		t.Fatalf("mp3: %s %d bytes", ct, len(mp3))
	}
	again, _ := speak(t, oa, speechParams("mock-tts", ""))
	if !bytes.Equal(mp3, again) {
		t.Error("the mock's speech is not deterministic")
	}

	tr, err := oa.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader(fakeAudio), "hello.wav", "audio/wav"), Model: "mock-transcribe",
		ResponseFormat: openai.AudioResponseFormatVerboseJSON, TimestampGranularities: []string{"word"},
	}, option.WithHeader("X-Request-Id", "mock-transcribe-1"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != "The quick brown fox jumps over the lazy dog." || len(tr.Words) != 9 || tr.Words[1].Word != "quick" ||
		tr.Words[1].Start != 0.4 || tr.Words[1].End != 0.8 {
		t.Fatalf("transcript %q words %+v", tr.Text, tr.Words)
	}
	plain, err := oa.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader(fakeAudio), "hello.wav", "audio/wav"), Model: "mock-transcribe"})
	if err != nil || plain.Text != tr.Text || len(plain.Words) != 0 {
		t.Fatalf("json transcript %+v %v", plain, err)
	}

	// A JSON body on the transcription endpoint is refused by media type.
	request(t, "POST", g.URL+"/v1/audio/transcriptions", `{"model":"mock-transcribe"}`, bearer(masterKey)...).
		ExpectErr(t, http.StatusUnsupportedMediaType, "invalid_request_error", "unsupported_media_type")
	// A chat model cannot speak.
	_, err = oa.Audio.Speech.New(ctx, speechParams("mock-chat", ""))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("speech on a chat model: %v", err)
	}

	entries, usage := auditRecords(t)
	e := one(t, entries, "mock-transcribe-1")
	if e.Path != "/v1/audio/transcriptions" || e.StatusCode != 200 || e.ProviderName != "demo" || e.ResolvedModel != "mock-transcribe" {
		t.Errorf("entry %s %d %s %s", e.Path, e.StatusCode, e.ProviderName, e.ResolvedModel)
	}
	if e.Data == nil || !strings.Contains(string(e.Data.RequestBody), "multipart/form-data") {
		t.Errorf("multipart body recorded as %s", e.Data.RequestBody)
	}
	recs := usage[e.ID]
	if len(recs) != 1 || recs[0].InputTokens != int64(len(fakeAudio)/64+1) || recs[0].OutputTokens != 9 {
		t.Errorf("usage records %+v", recs)
	}
}

// openAIAudioUpstream is a fake OpenAI serving both audio endpoints and
// recording what it was sent.
type openAIAudioUpstream struct {
	*httptest.Server
	mu     sync.Mutex
	speech []byte              // last speech body
	form   map[string][]string // last transcription form fields
	file   []byte
	auth   []string
}

func newOpenAIAudioUpstream(t *testing.T) *openAIAudioUpstream {
	u := &openAIAudioUpstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/speech", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.speech, u.auth = b, append(u.auth, r.Header.Get("Authorization"))
		u.mu.Unlock()
		w.Header().Set("Content-Type", "audio/opus")
		_, _ = w.Write([]byte("OggS-opus-audio"))
	})
	mux.HandleFunc("POST /v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := io.ReadAll(f)
		u.mu.Lock()
		u.form, u.file, u.auth = r.MultipartForm.Value, b, append(u.auth, r.Header.Get("Authorization"))
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"text":"native words","usage":{"type":"tokens","input_tokens":31,"output_tokens":4,"total_tokens":35}}`)
	})
	u.Server = httptest.NewServer(mux)
	t.Cleanup(u.Close)
	return u
}

// TestAudioOnOpenAINative: on openai both endpoints are native: the speech
// body and the form go upstream as sent but for the model id, with the
// provider's key; the answers come back unchanged and the transcription's
// token usage is recorded.
func TestAudioOnOpenAINative(t *testing.T) {
	clearEnv(t)
	up := newOpenAIAudioUpstream(t)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("oai", "openai", "sk-upstream-audio", up.URL+"/v1",
		"models gpt-4o-mini-tts gpt-4o-transcribe", "models_mode allowlist"))
	oa := openaiClient(g, masterKey)

	p := speechParams("oai/gpt-4o-mini-tts", openai.AudioSpeechNewParamsResponseFormatOpus)
	p.Speed = openai.Float(3.5)
	p.Instructions = openai.String("Cheerful.")
	audio, ct := speak(t, oa, p)
	if string(audio) != "OggS-opus-audio" || ct != "audio/opus" {
		t.Fatalf("speech answer %q %s", audio, ct)
	}
	var sent map[string]any
	if err := json.Unmarshal(up.speech, &sent); err != nil {
		t.Fatal(err)
	}
	if sent["model"] != "gpt-4o-mini-tts" || sent["speed"] != 3.5 || sent["instructions"] != "Cheerful." ||
		sent["response_format"] != "opus" || sent["voice"] != "alloy" {
		t.Errorf("speech body upstream %s", up.speech)
	}

	tr, err := oa.Audio.Transcriptions.New(context.Background(), openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader(fakeAudio), "a.wav", "audio/wav"), Model: "gpt-4o-transcribe",
		Prompt: openai.String("names: Modelgate"), Language: openai.String("en"),
	}, option.WithHeader("X-Request-Id", "native-transcribe-1"))
	if err != nil || tr.Text != "native words" {
		t.Fatalf("transcription %+v %v", tr, err)
	}
	if !bytes.Equal(up.file, fakeAudio) || first(up.form["model"]) != "gpt-4o-transcribe" ||
		first(up.form["prompt"]) != "names: Modelgate" || first(up.form["language"]) != "en" {
		t.Errorf("form upstream %v, file %d bytes", up.form, len(up.file))
	}
	for _, a := range up.auth {
		if a != "Bearer sk-upstream-audio" {
			t.Errorf("upstream credential %q", a)
		}
	}
	entries, usage := auditRecords(t)
	e := one(t, entries, "native-transcribe-1")
	checkEntry(t, e, 200, "openai", "oai", "gpt-4o-transcribe", "gpt-4o-transcribe")
	// The catalog prices this model by the second, which the answer does
	// not report: the tokens are recorded, the cost is what they price at.
	if recs := usage[e.ID]; len(recs) != 1 || recs[0].InputTokens != 31 || recs[0].OutputTokens != 4 || recs[0].Model != "gpt-4o-transcribe" {
		t.Errorf("usage records %+v", recs)
	}
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// multipartBody builds a transcription form by hand, for fields the SDK
// does not send.
func multipartBody(t *testing.T, fields map[string]string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, _ := mw.CreateFormFile("file", "a.wav")
	_, _ = fw.Write(fakeAudio)
	_ = mw.Close()
	return b.String(), mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": mw.Boundary()})
}

// TestAudioStreamsOnMock: the official SDK's streamed transcription and
// a stream_format sse speech request get their events through the
// gateway on the mock provider, and the transcription's closing event
// leaves its usage.
func TestAudioStreamsOnMock(t *testing.T) {
	g := startMockGateway(t)
	waitListed(t, g, masterKey, "mock-transcribe", "mock-tts")
	oa := openaiClient(g, masterKey)
	ctx := context.Background()

	stream := oa.Audio.Transcriptions.NewStreaming(ctx, openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader(fakeAudio), "hello.wav", "audio/wav"), Model: "mock-transcribe",
	}, option.WithHeader("X-Request-Id", "mock-transcribe-stream"))
	var text, done string
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "transcript.text.delta":
			text += ev.Delta
		case "transcript.text.done":
			done = ev.Text
		}
	}
	if err := stream.Err(); err != nil || text != "The quick brown fox jumps over the lazy dog." || done != text {
		t.Fatalf("streamed transcript %q, done %q: %v", text, done, err)
	}

	p := speechParams("mock-tts", openai.AudioSpeechNewParamsResponseFormatPCM)
	p.StreamFormat = openai.AudioSpeechNewParamsStreamFormatSSE
	body, ct := speak(t, oa, p)
	if ct != "text/event-stream" || !strings.Contains(string(body), `"type":"speech.audio.delta"`) ||
		!strings.Contains(string(body), `"type":"speech.audio.done"`) {
		t.Fatalf("sse speech: %s %.200s", ct, body)
	}

	entries, usage := auditRecords(t)
	e := one(t, entries, "mock-transcribe-stream")
	if !e.Stream || e.StatusCode != 200 {
		t.Errorf("streamed transcription entry: stream %v status %d", e.Stream, e.StatusCode)
	}
	if u := usage[e.ID]; len(u) != 1 || u[0].OutputTokens != 9 {
		t.Errorf("streamed transcription usage %+v", u)
	}
}
