// Package ssecheck checks the server-sent-event streams the gateway writes,
// for tests and fuzz targets: every event ends with a blank line and holds
// at most one event: line followed by one data: line, and every data
// payload but [DONE] is valid JSON. It also says whether a stream ended the
// way a client of its API shape expects: with its closing event or with an
// error event.
package ssecheck

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/platform/sse"
)

// Parse checks that out is a well-framed stream as the gateway writes them
// and returns its events. Data point into out. It is stricter than
// sse.Parse, on purpose: an event is an optional "event: NAME" line and
// exactly one "data: " line, with LF line ends, and the name is taken as
// it stands (sse.Parse would trim spaces around it).
func Parse(out []byte) ([]sse.Event, error) {
	if len(out) == 0 {
		return nil, nil
	}
	if !bytes.HasSuffix(out, []byte("\n\n")) {
		return nil, fmt.Errorf("the stream does not end with a blank line: %q", tail(out))
	}
	var evs []sse.Event
	for _, raw := range bytes.Split(out[:len(out)-2], []byte("\n\n")) {
		ev, err := parseEvent(raw)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// parseEvent checks one event without its blank line.
func parseEvent(raw []byte) (sse.Event, error) {
	var ev sse.Event
	lines := bytes.Split(raw, []byte("\n"))
	if name, ok := bytes.CutPrefix(lines[0], []byte("event: ")); ok {
		if len(name) == 0 || bytes.ContainsAny(name, "\r") {
			return ev, fmt.Errorf("bad event name %q", name)
		}
		ev.Name = string(name)
		lines = lines[1:]
	}
	if len(lines) != 1 {
		return ev, fmt.Errorf("event %q does not hold exactly one data line", raw)
	}
	data, ok := bytes.CutPrefix(lines[0], []byte("data: "))
	if !ok {
		return ev, fmt.Errorf("event %q has no data line", raw)
	}
	if string(data) != "[DONE]" && !json.Valid(data) {
		return ev, fmt.Errorf("event data is not JSON: %q", data)
	}
	ev.Data = data
	return ev, nil
}

func tail(b []byte) []byte {
	if len(b) > 80 {
		return b[len(b)-80:]
	}
	return b
}

// Shape is an API shape's idea of how a stream ends.
type Shape int

// The shapes of the streams the gateway writes.
const (
	// Messages is Anthropic Messages: message_stop, or an error event.
	Messages Shape = iota
	// Chat is OpenAI Chat Completions: data: [DONE], or an error chunk
	// ({"error":{...}}) with nothing after it.
	Chat
	// Responses is OpenAI Responses: response.completed,
	// response.incomplete or response.failed.
	Responses
)

// Ending reports how a stream of shape s with events evs ended:
// "complete", "error", or "" when it just stopped.
func Ending(s Shape, evs []sse.Event) string {
	if len(evs) == 0 {
		return ""
	}
	last := evs[len(evs)-1]
	switch s {
	case Messages:
		switch last.Name {
		case "message_stop":
			return "complete"
		case "error":
			return "error"
		}
	case Chat:
		if string(last.Data) == "[DONE]" {
			return "complete"
		}
		var c struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(last.Data, &c) == nil && c.Error != nil {
			return "error"
		}
	case Responses:
		switch last.Name {
		case "response.completed", "response.incomplete":
			return "complete"
		case "response.failed", "error":
			return "error"
		}
	}
	return ""
}
