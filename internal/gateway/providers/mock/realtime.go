package mock

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
)

// handleRealtime serves GET /v1/realtime?model=: a WebSocket session that
// speaks the realtime event protocol in text only. It greets with
// session.created, acknowledges conversation.item.create with
// conversation.item.created, answers response.create with
// response.created, one response.output_text.delta ("Echo: <last user
// text>") and response.done carrying usage, and answers any other client
// event with an error event. Token counts follow the chat endpoint's
// rules, so they depend only on the text.
func (h *handler) handleRealtime(w http.ResponseWriter, r *http.Request) {
	model := r.URL.Query().Get("model")
	if !h.chatModels[model] {
		writeError(w, &apiError{status: http.StatusNotFound, message: "The model `" + model + "` does not exist.",
			typ: "invalid_request_error", code: "model_not_found"})
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"realtime"}})
	if err != nil {
		return // Accept answered the request
	}
	defer c.CloseNow()
	c.SetReadLimit(maxBodyBytes)
	// The session outlives the handshake request's context.
	ctx := context.Background()
	send := func(v map[string]any) error {
		b, _ := json.Marshal(v)
		return c.Write(ctx, websocket.MessageText, b)
	}
	if send(map[string]any{"type": "session.created", "event_id": "event_mock_0",
		"session": map[string]any{"id": "sess_mock", "object": "realtime.session", "model": model}}) != nil {
		return
	}
	last := ""
	n := 0
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != -1 {
				c.Close(websocket.StatusNormalClosure, "")
			}
			return
		}
		n++
		ev := gjson.ParseBytes(msg)
		if typ != websocket.MessageText || !ev.IsObject() {
			if send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
				"message": "events are JSON objects in text messages"}}) != nil {
				return
			}
			continue
		}
		switch ev.Get("type").Str {
		case "conversation.item.create":
			var parts []string
			ev.Get("item.content").ForEach(func(_, p gjson.Result) bool {
				if t := p.Get("text"); t.Type == gjson.String {
					parts = append(parts, t.Str)
				}
				return true
			})
			last = strings.Join(parts, " ")
			err = send(map[string]any{"type": "conversation.item.created", "event_id": eventID(n),
				"item": json.RawMessage(ev.Get("item").Raw)})
		case "response.create":
			text := "Echo: " + last
			in, out := estimateTokens(last)+4, estimateTokens(text)
			id := "resp_mock_" + eventID(n)
			usage := map[string]any{"total_tokens": in + out, "input_tokens": in, "output_tokens": out,
				"input_token_details":  map[string]any{"cached_tokens": 0, "text_tokens": in, "audio_tokens": 0},
				"output_token_details": map[string]any{"text_tokens": out, "audio_tokens": 0}}
			for _, e := range []map[string]any{
				{"type": "response.created", "response": map[string]any{"id": id, "object": "realtime.response", "status": "in_progress"}},
				{"type": "response.output_text.delta", "response_id": id, "delta": text},
				{"type": "response.done", "response": map[string]any{"id": id, "object": "realtime.response",
					"status": "completed", "usage": usage}},
			} {
				if err = send(e); err != nil {
					break
				}
			}
		default:
			err = send(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
				"message": "the mock does not handle " + ev.Get("type").Str + " events"}})
		}
		if err != nil {
			return
		}
	}
}

// eventID is the id of the mock's n-th answer in a session.
func eventID(n int) string {
	b, _ := json.Marshal(n)
	return "event_mock_" + string(b)
}
