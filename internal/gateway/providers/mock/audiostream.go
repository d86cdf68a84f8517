package mock

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// speechChunkBytes is how much audio one speech.audio.delta event of a
// streamed speech answer carries.
const speechChunkBytes = 4096

// writeEvents writes events as a server-sent event stream, one data line
// each, flushing after every event; it stops when the client leaves.
func writeEvents(w http.ResponseWriter, r *http.Request, events []any) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, ev := range events {
		if r.Context().Err() != nil {
			return
		}
		b, _ := json.Marshal(ev) // plain structs and maps: cannot fail
		if _, err := w.Write(append(append([]byte("data: "), b...), '\n', '\n')); err != nil {
			return
		}
		_ = rc.Flush()
	}
}

// speechEvents is a streamed speech answer (stream_format "sse"): the
// audio in base64 speech.audio.delta events, then speech.audio.done with
// the usage, input tokens counted from the text and output tokens from
// the audio's length.
func speechEvents(audio []byte, inputTokens int64) []any {
	var out []any
	for len(audio) > 0 {
		n := min(len(audio), speechChunkBytes)
		out = append(out, map[string]string{"type": "speech.audio.delta", "audio": base64.StdEncoding.EncodeToString(audio[:n])})
		audio = audio[n:]
	}
	outTokens := int64(len(out))
	return append(out, map[string]any{"type": "speech.audio.done", "usage": map[string]int64{
		"input_tokens": inputTokens, "output_tokens": outTokens, "total_tokens": inputTokens + outTokens}})
}

// transcriptEvents is a streamed transcription (stream=true): one
// transcript.text.delta per word, then transcript.text.done with the
// whole text and the usage.
func transcriptEvents(words []string, text string, usage transcriptUsage) []any {
	out := make([]any, 0, len(words)+1)
	for i, word := range words {
		if i > 0 {
			word = " " + word
		}
		out = append(out, map[string]string{"type": "transcript.text.delta", "delta": word})
	}
	return append(out, map[string]any{"type": "transcript.text.done", "text": text, "usage": usage})
}
