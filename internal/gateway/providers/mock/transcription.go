package mock

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// mockTranscript is the text every transcription returns, one word every
// transcriptWordSeconds.
var mockTranscript = []string{"The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog."}

const transcriptWordSeconds = 0.4

// transcriptWord is one word with its timing, in OpenAI's shape.
type transcriptWord struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// transcriptSegment is one segment of a verbose_json answer.
type transcriptSegment struct {
	ID    int     `json:"id"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

// transcriptUsage is token usage as OpenAI's token-billed transcription
// models report it.
type transcriptUsage struct {
	Type         string `json:"type"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	TotalTokens  int64  `json:"total_tokens"`
}

type jsonTranscript struct {
	Text  string           `json:"text"`
	Words []transcriptWord `json:"words,omitempty"`
	Usage transcriptUsage  `json:"usage"`
}

type verboseTranscript struct {
	Task     string              `json:"task"`
	Language string              `json:"language"`
	Duration float64             `json:"duration"`
	Text     string              `json:"text"`
	Words    []transcriptWord    `json:"words,omitempty"`
	Segments []transcriptSegment `json:"segments"`
	Usage    transcriptUsage     `json:"usage"`
}

// handleTranscription serves POST /audio/transcriptions (multipart): the
// fixed transcript, with word timings when timestamp_granularities asks
// for words, in json (the default), text, verbose_json, srt or vtt, or
// with stream=true as a stream of events.
func (h *handler) handleTranscription(w http.ResponseWriter, r *http.Request) {
	fields, audio, ok := readForm(w, r)
	if !ok {
		return
	}
	model := first(fields, "model")
	if model == "" {
		writeError(w, missingModel())
		return
	}
	if !h.transcriptionModels[model] {
		writeError(w, modelNotFound(model))
		return
	}
	if audio == nil {
		writeError(w, invalidRequest("file", "Missing required parameter: 'file'."))
		return
	}
	wantWords := false
	for _, g := range append(fields["timestamp_granularities[]"], fields["timestamp_granularities"]...) {
		wantWords = wantWords || g == "word"
	}
	words := make([]transcriptWord, len(mockTranscript))
	for i, t := range mockTranscript {
		words[i] = transcriptWord{Word: t, Start: float64(i) * transcriptWordSeconds, End: float64(i+1) * transcriptWordSeconds}
	}
	text := strings.Join(mockTranscript, " ")
	duration := float64(len(mockTranscript)) * transcriptWordSeconds
	usage := transcriptUsage{Type: "tokens", InputTokens: int64(len(audio)/64 + 1), OutputTokens: int64(len(mockTranscript))}
	usage.TotalTokens = usage.InputTokens + usage.OutputTokens
	if !wantWords {
		words = nil
	}
	if first(fields, "stream") == "true" {
		writeEvents(w, r, transcriptEvents(mockTranscript, text, usage))
		return
	}
	switch f := first(fields, "response_format"); f {
	case "", "json":
		writeJSON(w, http.StatusOK, jsonTranscript{Text: text, Words: words, Usage: usage})
	case "verbose_json":
		writeJSON(w, http.StatusOK, verboseTranscript{Task: "transcribe", Language: "english", Duration: duration,
			Text: text, Words: words, Segments: []transcriptSegment{{Start: 0, End: duration, Text: text}}, Usage: usage})
	case "text":
		writeText(w, "text/plain; charset=utf-8", text+"\n")
	case "srt":
		writeText(w, "text/plain; charset=utf-8", fmt.Sprintf("1\n00:00:00,000 --> 00:00:0%d,%03d\n%s\n\n",
			int(duration), int(duration*1000)%1000, text))
	case "vtt":
		writeText(w, "text/vtt; charset=utf-8", fmt.Sprintf("WEBVTT\n\n00:00:00.000 --> 00:00:0%d.%03d\n%s\n\n",
			int(duration), int(duration*1000)%1000, text))
	default:
		writeError(w, invalidRequest("response_format", "Invalid response_format %q.", f))
	}
}

func writeText(w http.ResponseWriter, ct, s string) {
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(s)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, s)
}

func first(fields map[string][]string, name string) string {
	if v := fields[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readForm reads a multipart/form-data body: its non-file fields and the
// content of its "file" part (nil when there is none). On failure it
// answers the request itself and returns ok == false.
func readForm(w http.ResponseWriter, r *http.Request) (fields map[string][]string, audio []byte, ok bool) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		writeError(w, invalidRequest("", "Expected a multipart/form-data body."))
		return nil, nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	form, err := r.MultipartReader()
	if err != nil {
		writeError(w, invalidRequest("", "Cannot read the multipart body: %v", err))
		return nil, nil, false
	}
	fields = map[string][]string{}
	for {
		part, err := form.NextPart()
		if errors.Is(err, io.EOF) {
			return fields, audio, true
		}
		if err != nil {
			writeError(w, invalidRequest("", "Cannot read the multipart body: %v", err))
			return nil, nil, false
		}
		b, err := io.ReadAll(part)
		if err != nil {
			writeError(w, invalidRequest("", "Cannot read the multipart body: %v", err))
			return nil, nil, false
		}
		if part.FormName() == "file" {
			audio = b
			continue
		}
		fields[part.FormName()] = append(fields[part.FormName()], string(b))
	}
}
