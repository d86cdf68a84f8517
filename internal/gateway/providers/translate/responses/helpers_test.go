package responses

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/platform/sse"
)

// runStream feeds every upstream event to a new stream for req, then
// calls Finish, and returns the Responses events produced.
func runStream(t testing.TB, req []byte, upstream []sse.Event) ([]sse.Event, *ChatToResponsesStream) {
	t.Helper()
	s := NewChatToResponsesStream(req)
	var all []byte
	for _, ev := range upstream {
		out, _ := s.Feed(ev)
		all = append(all, out...)
	}
	all = append(all, s.Finish()...)
	return sse.Split(all), s
}

// chatChunks builds an upstream stream from chunk JSON strings, with the
// closing [DONE].
func chatChunks(chunks ...string) []sse.Event {
	out := make([]sse.Event, 0, len(chunks)+1)
	for _, c := range chunks {
		out = append(out, sse.Event{Data: []byte(c)})
	}
	return append(out, sse.Event{Data: []byte("[DONE]")})
}

// Structs shaped like the Responses API objects, for decoding.
type testResponse struct {
	ID                string                   `json:"id"`
	Object            string                   `json:"object"`
	CreatedAt         int64                    `json:"created_at"`
	Status            string                   `json:"status"`
	CompletedAt       *int64                   `json:"completed_at"`
	Error             *testError               `json:"error"`
	IncompleteDetails *struct{ Reason string } `json:"incomplete_details"`
	Instructions      *string                  `json:"instructions"`
	MaxOutputTokens   *int64                   `json:"max_output_tokens"`
	Model             string                   `json:"model"`
	Output            []testItem               `json:"output"`
	ParallelToolCalls bool                     `json:"parallel_tool_calls"`
	Temperature       *float64                 `json:"temperature"`
	TopP              *float64                 `json:"top_p"`
	Text              struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	ToolChoice json.RawMessage   `json:"tool_choice"`
	Tools      []json.RawMessage `json:"tools"`
	Store      bool              `json:"store"`
	Usage      *testUsage        `json:"usage"`
	Metadata   map[string]string `json:"metadata"`
}

type testError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type testItem struct {
	ID        string            `json:"id"`
	Type      string            `json:"type"`
	Status    string            `json:"status"`
	Role      string            `json:"role"`
	Content   []testPart        `json:"content"`
	Summary   []json.RawMessage `json:"summary"`
	CallID    string            `json:"call_id"`
	Name      string            `json:"name"`
	Arguments string            `json:"arguments"`
}

type testPart struct {
	Type        string            `json:"type"`
	Text        string            `json:"text"`
	Refusal     string            `json:"refusal"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    []json.RawMessage `json:"logprobs"`
}

type testUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64 `json:"total_tokens"`
}

// outputTextOf is what the SDKs' output_text convenience computes: the
// text of every output_text part of every message item.
func (r *testResponse) outputText() string {
	var sb strings.Builder
	for _, it := range r.Output {
		if it.Type != "message" {
			continue
		}
		for _, p := range it.Content {
			if p.Type == "output_text" {
				sb.WriteString(p.Text)
			}
		}
	}
	return sb.String()
}

func decodeStrict(t testing.TB, b []byte, v any) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("not valid JSON: %s", b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

// clientEvent is one decoded Responses stream event.
type clientEvent struct {
	name string
	raw  []byte
	m    map[string]any
}

func (e clientEvent) str(k string) string { s, _ := e.m[k].(string); return s }

func (e clientEvent) num(k string) int {
	f, ok := e.m[k].(float64)
	if !ok {
		return -1
	}
	return int(f)
}

// checkStream checks events against the Responses streaming protocol
// as the real API produces it and returns them decoded, with the final
// response. It checks: event: equals type; sequence numbers run 0, 1, 2,
// ...; created and in_progress come first and one terminal event comes
// last; items are added with consecutive output indexes, one at a time,
// and every delta belongs to the open item and part; each done event
// repeats exactly the text or arguments its deltas built; and the final
// response's output equals the items of the output_item.done events.
func checkStream(t testing.TB, events []sse.Event) ([]clientEvent, testResponse) {
	t.Helper()
	var evs []clientEvent
	for i, ev := range events {
		var m map[string]any
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			t.Fatalf("event %d is not JSON: %s", i, ev.Data)
		}
		e := clientEvent{name: ev.Name, raw: ev.Data, m: m}
		if e.str("type") != ev.Name {
			t.Fatalf("event %d: event: %q but type %q", i, ev.Name, e.str("type"))
		}
		if e.num("sequence_number") != i {
			t.Fatalf("event %d (%s): sequence_number %d", i, ev.Name, e.num("sequence_number"))
		}
		evs = append(evs, e)
	}
	if len(evs) < 3 || evs[0].name != "response.created" || evs[1].name != "response.in_progress" {
		t.Fatalf("stream must start with response.created, response.in_progress: %v", eventTypes(evs))
	}
	for _, e := range evs[:2] {
		resp := e.m["response"].(map[string]any)
		if resp["status"] != "in_progress" || len(resp["output"].([]any)) != 0 || resp["usage"] != nil {
			t.Fatalf("%s response: %s", e.name, e.raw)
		}
	}
	last := evs[len(evs)-1]
	switch last.name {
	case "response.completed", "response.incomplete", "response.failed":
	default:
		t.Fatalf("last event %s is not terminal", last.name)
	}

	var cur *openItem
	var doneItems []json.RawMessage
	next := 0
	for _, e := range evs[2 : len(evs)-1] {
		switch e.name {
		case "response.output_item.added":
			if cur != nil {
				t.Fatalf("item %d added while item %d is open", e.num("output_index"), cur.index)
			}
			item := e.m["item"].(map[string]any)
			if e.num("output_index") != next {
				t.Fatalf("output_index %d, want %d", e.num("output_index"), next)
			}
			if st, ok := item["status"]; ok && st != "in_progress" {
				t.Fatalf("added item status %v", st)
			}
			cur = &openItem{id: item["id"].(string), typ: item["type"].(string), index: next}
			next++
		case "response.content_part.added":
			checkOn(t, e, cur)
			if cur.partOn || e.num("content_index") != cur.parts {
				t.Fatalf("content_part.added out of order: %s", e.raw)
			}
			cur.partOn, cur.partTxt = true, ""
		case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta":
			checkOn(t, e, cur)
			if !cur.partOn || e.num("content_index") != cur.parts {
				t.Fatalf("delta outside its part: %s", e.raw)
			}
			cur.partTxt += e.str("delta")
		case "response.output_text.done", "response.refusal.done", "response.reasoning_text.done":
			checkOn(t, e, cur)
			field := "text"
			if e.name == "response.refusal.done" {
				field = "refusal"
			}
			if !cur.partOn || e.str(field) != cur.partTxt {
				t.Fatalf("%s %q, deltas built %q", e.name, e.str(field), cur.partTxt)
			}
		case "response.content_part.done":
			checkOn(t, e, cur)
			part := e.m["part"].(map[string]any)
			txt, _ := part["text"].(string)
			if part["type"] == "refusal" {
				txt, _ = part["refusal"].(string)
			}
			if txt != cur.partTxt {
				t.Fatalf("content_part.done text %q, deltas built %q", txt, cur.partTxt)
			}
			cur.partOn = false
			cur.parts++
		case "response.function_call_arguments.delta":
			checkOn(t, e, cur)
			cur.args += e.str("delta")
		case "response.function_call_arguments.done":
			checkOn(t, e, cur)
			if e.str("arguments") != cur.args {
				t.Fatalf("arguments.done %q, deltas built %q", e.str("arguments"), cur.args)
			}
		case "response.output_item.done":
			if cur == nil || e.num("output_index") != cur.index || cur.partOn {
				t.Fatalf("output_item.done out of order: %s", e.raw)
			}
			item := e.m["item"].(map[string]any)
			if item["id"] != cur.id {
				t.Fatalf("done item id %v, added %s", item["id"], cur.id)
			}
			if cur.typ == "function_call" && item["arguments"] != cur.args {
				t.Fatalf("done item arguments %v, deltas built %q", item["arguments"], cur.args)
			}
			raw, _ := json.Marshal(item)
			doneItems = append(doneItems, raw)
			cur = nil
		default:
			t.Fatalf("unexpected event %s", e.name)
		}
	}
	var final testResponse
	decodeStrict(t, marshalJSON(t, last.m["response"]), &final)
	if last.name != "response.failed" {
		if cur != nil {
			t.Fatalf("item %d still open at %s", cur.index, last.name)
		}
		var got []any
		want := make([]any, len(doneItems))
		for i, d := range doneItems {
			_ = json.Unmarshal(d, &want[i])
		}
		got, _ = last.m["response"].(map[string]any)["output"].([]any)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("final output differs from the done items:\n%v\n%v", got, want)
		}
	}
	if final.Object != "response" || !strings.HasPrefix(final.ID, "resp_") {
		t.Fatalf("final response: %s", last.raw)
	}
	return evs, final
}

// openItem is the output item a stream has open, as the checker
// follows it.
type openItem struct {
	id, typ string
	index   int
	parts   int
	partTxt string // text built by the open part's deltas
	partOn  bool
	args    string
}

func checkOn(t testing.TB, e clientEvent, cur *openItem) {
	t.Helper()
	if cur == nil {
		t.Fatalf("%s with no open item", e.name)
	}
	if e.str("item_id") != cur.id || e.num("output_index") != cur.index {
		t.Fatalf("%s for another item: %s", e.name, e.raw)
	}
}

func marshalJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func eventTypes(evs []clientEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.name
	}
	return out
}

// jSONEqual reports whether two JSON documents are equal as values.
func jSONEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return reflect.DeepEqual(x, y)
}
