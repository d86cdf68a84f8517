package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// ElevenLabs is the adapter of the voice provider: it serves only
// POST /v1/audio/speech and POST /v1/audio/transcriptions, mapping
// OpenAI's request shapes onto the provider's text-to-speech and
// speech-to-text endpoints and its transcripts back. Requests it cannot
// map faithfully are refused (CheckJSON, CheckTranscription) before
// anything is sent.
type ElevenLabs struct {
	t         *TypeInfo
	name      string
	baseURL   string
	host      string // the base URL's host name (ServerAddress)
	auth      string
	client    *http.Client
	userAgent string
}

// The voice provider's speech-to-text models: they are missing from its
// model listing, so the adapter adds them.
var elevenLabsTranscriptionModels = []string{"scribe_v2", "scribe_v1"}

// elevenLabsOutputFormats maps OpenAI's response_format onto the
// provider's output_format; formats missing here are refused.
var elevenLabsOutputFormats = map[string]string{
	"mp3":  "mp3_44100_128",
	"opus": "opus_48000_128",
	"pcm":  "pcm_44100",
	"wav":  "wav_44100",
}

// The range the provider accepts for voice_settings.speed; OpenAI's wider
// 0.25–4.0 is clamped into it.
const (
	elevenLabsMinSpeed = 0.7
	elevenLabsMaxSpeed = 1.2
)

// maxTranscriptBytes bounds a speech-to-text answer read for mapping.
const maxTranscriptBytes = 32 << 20

func newElevenLabs(t *TypeInfo, o Options) *ElevenLabs {
	p := &ElevenLabs{t: t, name: o.Name, baseURL: strings.TrimRight(o.BaseURL, "/"), host: hostOf(o.BaseURL),
		client: o.Client, userAgent: o.UserAgent}
	if o.APIKey != "" {
		p.auth = t.authValue(o.APIKey)
	}
	return p
}

// Name implements Provider.
func (p *ElevenLabs) Name() string { return p.name }

// Type implements Provider.
func (p *ElevenLabs) Type() string { return p.t.Name }

// Shape implements Provider.
func (p *ElevenLabs) Shape() Shape { return p.t.Shape }

// Supports implements Provider with the type's endpoint list.
func (p *ElevenLabs) Supports(ep Endpoint) bool { return p.t.Supports(ep) }

// StreamUsageOption implements Provider: there is no chat stream.
func (p *ElevenLabs) StreamUsageOption() bool { return false }

// BaseURL implements Relayer.
func (p *ElevenLabs) BaseURL() string { return p.baseURL }

// AuthHeader implements Relayer.
func (p *ElevenLabs) AuthHeader() string { return p.t.AuthHeader }

// Relay implements Relayer.
func (p *ElevenLabs) Relay(ctx context.Context, req RawRequest) (*http.Response, error) {
	return relay(ctx, p.client, p.baseURL, p.t.AuthHeader, req, p.setHeaders)
}

func (p *ElevenLabs) setHeaders(h http.Header) {
	if p.userAgent != "" {
		h.Set("User-Agent", p.userAgent)
	}
	if p.auth != "" {
		h.Set(p.t.AuthHeader, p.auth)
	}
}

// speechRequest is an OpenAI speech body mapped onto the provider: the
// voice in the path, the output format in the query, the rest as JSON.
type speechRequest struct {
	voice        string
	outputFormat string
	body         []byte
}

// elevenLabsSpeechBody is the provider's text-to-speech request body.
type elevenLabsSpeechBody struct {
	Text          string                  `json:"text"`
	ModelID       string                  `json:"model_id"`
	VoiceSettings *elevenLabsVoiceSetting `json:"voice_settings,omitempty"`
}

type elevenLabsVoiceSetting struct {
	Speed float64 `json:"speed"`
}

// CheckModel implements RequestChecker: the speech-to-text models
// (scribe_*) serve transcription only, every other model speech only.
func (p *ElevenLabs) CheckModel(ep Endpoint, model string) error {
	transcribes := strings.HasPrefix(model, "scribe")
	switch {
	case ep == EndpointSpeech && transcribes:
		return &RequestError{Param: "model", Code: CodeUnsupportedEndpoint,
			Message: "model " + model + " transcribes speech; /v1/audio/speech needs a text-to-speech model"}
	case ep == EndpointTranscriptions && !transcribes:
		return &RequestError{Param: "model", Code: CodeUnsupportedEndpoint,
			Message: "model " + model + " is a text-to-speech model; /v1/audio/transcriptions needs a speech-to-text model (scribe_v2, scribe_v1)"}
	}
	return nil
}

// CheckJSON implements RequestChecker: only speech bodies are accepted,
// and only with fields the provider can honour.
func (p *ElevenLabs) CheckJSON(ep Endpoint, body []byte) error {
	if ep != EndpointSpeech {
		return &RequestError{Param: "model", Message: "the voice provider serves only speech and transcription"}
	}
	_, err := mapSpeech(body, "")
	return err
}

// mapSpeech maps an OpenAI speech body for model onto the provider's
// request, or refuses it with a *RequestError naming the field.
func mapSpeech(body []byte, model string) (*speechRequest, error) {
	root := gjson.ParseBytes(body)
	if v := root.Get("instructions"); v.Exists() && v.Type != gjson.Null {
		return nil, &RequestError{Param: "instructions", Message: "instructions are not supported by the voice provider"}
	}
	if v := root.Get("stream_format"); v.Exists() && v.Type != gjson.Null && v.String() != "audio" {
		return nil, &RequestError{Param: "stream_format", Message: "the voice provider has no streamed speech; stream_format must be audio"}
	}
	format := "mp3"
	if v := root.Get("response_format"); v.Exists() && v.Type != gjson.Null {
		format = v.String()
	}
	out, ok := elevenLabsOutputFormats[format]
	if !ok {
		return nil, &RequestError{Param: "response_format",
			Message: fmt.Sprintf("response_format %q is not supported by the voice provider; use mp3, opus, pcm or wav", format)}
	}
	voice := root.Get("voice")
	if voice.IsObject() {
		voice = voice.Get("id")
	}
	if voice.Type != gjson.String || voice.Str == "" {
		return nil, &RequestError{Param: "voice", Code: missingOrInvalid(voice),
			Message: "voice must be a voice id of the voice provider's voice library"}
	}
	input := root.Get("input")
	if input.Type != gjson.String || input.Str == "" {
		return nil, &RequestError{Param: "input", Code: missingOrInvalid(input), Message: "input must be a non-empty string"}
	}
	b := elevenLabsSpeechBody{Text: input.Str, ModelID: model}
	if v := root.Get("speed"); v.Exists() && v.Type != gjson.Null {
		if v.Type != gjson.Number {
			return nil, &RequestError{Param: "speed", Code: CodeInvalidValue, Message: "speed must be a number"}
		}
		b.VoiceSettings = &elevenLabsVoiceSetting{Speed: min(max(v.Float(), elevenLabsMinSpeed), elevenLabsMaxSpeed)}
	}
	enc, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	return &speechRequest{voice: voice.Str, outputFormat: out, body: enc}, nil
}

// Do implements Provider for speech: POST /v1/text-to-speech/{voice}
// with the mapped output format; the audio comes back as the provider
// sent it. Every other endpoint is refused.
func (p *ElevenLabs) Do(ctx context.Context, ep Endpoint, model string, body []byte) (*http.Response, error) {
	if ep != EndpointSpeech {
		return nil, fmt.Errorf("%s does not serve %s", p.t.Name, ep)
	}
	sr, err := mapSpeech(body, model)
	if err != nil {
		return nil, err
	}
	u := p.baseURL + "/v1/text-to-speech/" + url.PathEscape(sr.voice) + "?output_format=" + url.QueryEscape(sr.outputFormat)
	return postJSON(ctx, p.client, u, sr.body, p.setHeaders)
}

// CheckTranscription implements RequestChecker.
func (p *ElevenLabs) CheckTranscription(f *TranscriptionForm) error {
	if _, ok := f.Get("prompt"); ok {
		return &RequestError{Param: "prompt", Message: "prompt is not supported by the voice provider"}
	}
	if v, ok := f.Get("stream"); ok && v != "false" {
		return &RequestError{Param: "stream", Message: "the voice provider has no streamed transcription"}
	}
	switch v, _ := f.Get("response_format"); v {
	case "", "json", "text", "verbose_json":
	default:
		return &RequestError{Param: "response_format",
			Message: fmt.Sprintf("response_format %q is not supported by the voice provider; use json, text or verbose_json", v)}
	}
	return nil
}

// wantsWords reports whether the form asks for word timings: a
// timestamp_granularities entry "word", or the verbose_json format.
func wantsWords(f *TranscriptionForm) bool {
	if v, _ := f.Get("response_format"); v == "verbose_json" {
		return true
	}
	for _, g := range f.All("timestamp_granularities") {
		if g == "word" {
			return true
		}
	}
	return false
}

// Transcribe implements Transcriber: POST /v1/speech-to-text with
// model_id, timestamps_granularity (word when timings are wanted, else
// none), language_code from language, and the file; the transcript is
// mapped to OpenAI's json, text or verbose_json answer. An error answer
// comes back as the provider sent it.
func (p *ElevenLabs) Transcribe(ctx context.Context, model string, f *TranscriptionForm) (*http.Response, error) {
	if err := p.CheckTranscription(f); err != nil {
		return nil, err
	}
	granularity := "none"
	if wantsWords(f) {
		granularity = "word"
	}
	fields := []FormField{{Name: "model_id", Value: model}, {Name: "timestamps_granularity", Value: granularity}}
	if lang, ok := f.Get("language"); ok && lang != "" {
		fields = append(fields, FormField{Name: "language_code", Value: lang})
	}
	body, ct, err := f.Encode(fields, "file")
	if err != nil {
		return nil, err
	}
	resp, err := p.Relay(ctx, RawRequest{Method: http.MethodPost, Path: "v1/speech-to-text",
		Header: http.Header{"Content-Type": {ct}}, Body: bytes.NewReader(body), ContentLength: int64(len(body))})
	if err != nil || resp.StatusCode >= 400 || IsRedirect(resp.StatusCode) {
		return resp, err // the caller maps an error answer or a redirect
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTranscriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	if len(raw) > maxTranscriptBytes {
		return nil, fmt.Errorf("%w: transcript exceeds %d bytes", ErrBadAnswer, maxTranscriptBytes)
	}
	format, _ := f.Get("response_format")
	out, outType, err := mapTranscript(raw, format, granularity == "word")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	h := http.Header{"Content-Type": {outType}, "Content-Length": {strconv.Itoa(len(out))}}
	if id := resp.Header.Get("Request-Id"); id != "" {
		h.Set("Request-Id", id)
	}
	return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(out)), ContentLength: int64(len(out)), Request: resp.Request}, nil
}

// openAIWord is one word with its timing in OpenAI's transcript shape.
type openAIWord struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

type openAISegment struct {
	ID    int     `json:"id"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

type openAIDuration struct {
	Type    string  `json:"type"`
	Seconds float64 `json:"seconds"`
}

type openAITranscript struct {
	Task     string          `json:"task,omitempty"`
	Language string          `json:"language,omitempty"`
	Duration *float64        `json:"duration,omitempty"`
	Text     string          `json:"text"`
	Words    []openAIWord    `json:"words,omitempty"`
	Segments []openAISegment `json:"segments,omitempty"`
	Usage    *openAIDuration `json:"usage,omitempty"`
}

// mapTranscript maps the provider's transcript (text, language_code,
// words of type word, spacing or audio_event with start and end seconds)
// onto OpenAI's answer in format, with a words array when words is set.
// It returns the body and its Content-Type.
func mapTranscript(raw []byte, format string, words bool) ([]byte, string, error) {
	root := gjson.ParseBytes(raw)
	if !root.IsObject() || root.Get("text").Type != gjson.String {
		return nil, "", fmt.Errorf("speech-to-text answer has no text")
	}
	text := root.Get("text").Str
	if format == "text" {
		return []byte(text + "\n"), "text/plain; charset=utf-8", nil
	}
	t := openAITranscript{Text: text}
	var end float64
	root.Get("words").ForEach(func(_, w gjson.Result) bool {
		end = max(end, w.Get("end").Float())
		if words && w.Get("type").String() == "word" {
			t.Words = append(t.Words, openAIWord{Word: w.Get("text").String(), Start: w.Get("start").Float(), End: w.Get("end").Float()})
		}
		return true
	})
	if words && t.Words == nil {
		t.Words = []openAIWord{}
	}
	if end > 0 {
		t.Usage = &openAIDuration{Type: "duration", Seconds: end}
	}
	if format == "verbose_json" {
		t.Task, t.Language, t.Duration = "transcribe", root.Get("language_code").String(), &end
		t.Segments = []openAISegment{{Start: 0, End: end, Text: text}}
	}
	b, err := json.Marshal(t)
	return b, "application/json", err
}

// ListModels implements Provider: the text-to-speech models of the
// provider's listing (GET /v1/models, an array of objects with model_id
// and can_do_text_to_speech) and the speech-to-text models, which the
// listing lacks.
func (p *ElevenLabs) ListModels(ctx context.Context) ([]Model, error) {
	body, err := getListing(ctx, p.client, p.baseURL+"/v1/models", p.setHeaders)
	if err != nil {
		return nil, err
	}
	list := gjson.ParseBytes(body)
	if !list.IsArray() {
		return nil, fmt.Errorf("model listing: not an array")
	}
	var models []Model
	list.ForEach(func(_, m gjson.Result) bool {
		id := m.Get("model_id").String()
		if id != "" && m.Get("can_do_text_to_speech").Bool() {
			models = append(models, Model{ID: id, OwnedBy: p.t.Name})
		}
		return true
	})
	for _, id := range elevenLabsTranscriptionModels {
		models = append(models, Model{ID: id, OwnedBy: p.t.Name})
	}
	return models, nil
}

// missingOrInvalid is the code of a refused required field: missing when
// it is absent, null or empty, invalid when it has another type.
func missingOrInvalid(v gjson.Result) string {
	if !v.Exists() || v.Type == gjson.Null || (v.Type == gjson.String && v.Str == "") {
		return CodeMissingParameter
	}
	return CodeInvalidValue
}
