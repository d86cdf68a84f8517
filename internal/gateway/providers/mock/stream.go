package mock

import (
	"encoding/json"
	"net/http"
	"time"
)

// chatChunk is one streamed "chat.completion.chunk" event.
type chatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	// Usage is omitted unless usage was requested; then it is null on
	// every chunk but the last, which carries a *usage.
	Usage any `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	Logprobs     *struct{}  `json:"logprobs"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int                   `json:"index"`
	ID       string                `json:"id,omitempty"`
	Type     string                `json:"type,omitempty"`
	Function toolCallFunctionDelta `json:"function"`
}

type toolCallFunctionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// nullJSON is the JSON null literal, used for "usage":null.
var nullJSON = json.RawMessage("null")

// toolArgumentPieces is how many deltas tool call arguments are split into.
const toolArgumentPieces = 3

// jsonPieceRunes is the length of the content deltas of a JSON answer,
// which has no white space to split at: about four tokens.
const jsonPieceRunes = 16

// chunks returns the streamed form of c: a role chunk, the content (one
// chunk per word, or per jsonPieceRunes runes of a JSON answer) or the
// tool calls (for each in turn, a header chunk, then its arguments in
// pieces), a chunk with the finish reason and, if includeUsage, a final
// chunk with no choices and the usage.
func (c *completion) chunks(includeUsage bool) []chatChunk {
	var usageField any
	if includeUsage {
		usageField = nullJSON
	}
	mk := func(d chunkDelta, finish *string) chatChunk {
		return chatChunk{
			ID:      c.id,
			Object:  "chat.completion.chunk",
			Created: c.created,
			Model:   c.model,
			Choices: []chunkChoice{{Index: 0, Delta: d, FinishReason: finish}},
			Usage:   usageField,
		}
	}

	empty := ""
	out := []chatChunk{mk(chunkDelta{Role: "assistant", Content: &empty}, nil)}
	switch {
	case len(c.toolCalls) > 0:
		for i, tc := range c.toolCalls {
			out = append(out, mk(chunkDelta{ToolCalls: []toolCallDelta{{
				Index:    i,
				ID:       tc.ID,
				Type:     tc.Type,
				Function: toolCallFunctionDelta{Name: tc.Function.Name},
			}}}, nil))
			for _, piece := range splitEven(tc.Function.Arguments, toolArgumentPieces) {
				out = append(out, mk(chunkDelta{ToolCalls: []toolCallDelta{{
					Index:    i,
					Function: toolCallFunctionDelta{Arguments: piece},
				}}}, nil))
			}
		}
	case c.json:
		for _, piece := range splitRunes(c.content, jsonPieceRunes) {
			out = append(out, mk(chunkDelta{Content: &piece}, nil))
		}
	default:
		for _, word := range splitWords(c.content) {
			out = append(out, mk(chunkDelta{Content: &word}, nil))
		}
	}
	finish := c.finishReason
	out = append(out, mk(chunkDelta{}, &finish))
	if includeUsage {
		u := c.usage
		out = append(out, chatChunk{
			ID:      c.id,
			Object:  "chat.completion.chunk",
			Created: c.created,
			Model:   c.model,
			Choices: []chunkChoice{},
			Usage:   &u,
		})
	}
	return out
}

// writeStream streams c as server-sent events, flushing after each event
// and waiting ChunkDelay before each generated chunk but the first (the
// usage chunk and [DONE] follow the finish chunk at once). It stops early
// when the request context is cancelled or a write fails.
func (h *handler) writeStream(w http.ResponseWriter, r *http.Request, c *completion, includeUsage bool) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()

	var timer *time.Timer
	if h.opts.ChunkDelay > 0 {
		timer = time.NewTimer(h.opts.ChunkDelay)
		defer timer.Stop()
	}
	// pause waits ChunkDelay, unless now is set; it reports whether
	// the stream goes on.
	pause := func(now bool) bool {
		if ctx.Err() != nil {
			return false
		}
		if now || timer == nil {
			return true
		}
		timer.Reset(h.opts.ChunkDelay)
		select {
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	send := func(event []byte) bool {
		if _, err := w.Write(event); err != nil {
			return false
		}
		_ = rc.Flush()
		return true
	}

	var buf []byte
	chunks := c.chunks(includeUsage)
	generated := len(chunks) // the role, content and finish chunks
	if includeUsage {
		generated--
	}
	for i, chunk := range chunks {
		// The usage chunk is not generated: like providers, the mock
		// sends it, and [DONE], as soon as the finish chunk.
		if !pause(i == 0 || i >= generated) {
			return
		}
		buf = append(buf[:0], "data: "...)
		var err error
		if buf, err = appendJSON(buf, chunk); err != nil {
			return
		}
		buf = append(buf, "\n\n"...)
		if !send(buf) {
			return
		}
	}
	if pause(true) {
		send([]byte("data: [DONE]\n\n"))
	}
}
