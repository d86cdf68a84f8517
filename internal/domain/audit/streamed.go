package audit

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/reqbody"
)

// StreamKind is the event format of a streamed answer.
type StreamKind int

// Stream kinds.
const (
	// StreamChat is a chat completions stream (chat.completion.chunk
	// events); it adds up to a chat.completion.
	StreamChat StreamKind = iota
	// StreamMessages is an Anthropic messages stream; it adds up to a
	// message.
	StreamMessages
	// StreamResponses is a Responses stream; it adds up to the response
	// object of its response.completed (or response.incomplete or
	// response.failed) event.
	StreamResponses
	// StreamAuto is a stream of unknown format (a passthrough answer): the
	// formats above are tried in turn.
	StreamAuto
)

// StreamedBody returns the recorded form of a streamed answer: the final
// object its server-sent events add up to. When the events add up to
// nothing recognisable (an error stream, a truncated one), the raw text is
// recorded as a JSON string; an empty stream records nil.
func StreamedBody(kind StreamKind, stream []byte) json.RawMessage {
	if len(stream) == 0 {
		return nil
	}
	var out any
	switch kind {
	case StreamChat:
		if c := chatFromStream(stream); c != nil {
			out = c
		}
	case StreamMessages:
		if m := messageFromStream(stream); m != nil {
			return m
		}
	case StreamResponses:
		if r := responseFromStream(stream); r != nil {
			return r
		}
	case StreamAuto:
		if r := responseFromStream(stream); r != nil {
			return r
		}
		if m := messageFromStream(stream); m != nil {
			return m
		}
		if c := chatFromStream(stream); c != nil {
			out = c
		}
	}
	if out != nil {
		if b, err := json.Marshal(out); err == nil {
			return b
		}
	}
	s, _ := json.Marshal(string(bytes.ToValidUTF8(stream, []byte("\uFFFD"))))
	return s
}

// parseData parses an event's data as sse.EachData hands it over, without
// copying it: the strings of the result share its bytes, which nothing
// changes while the stream is being added up.
func parseData(data []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data)))
}

// chatToolCall is a tool call being assembled from chat stream deltas.
type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatChoice is a choice being assembled from chat stream deltas.
type chatChoice struct {
	index        int64
	role         string
	content      strings.Builder
	refusal      strings.Builder
	toolCalls    map[int64]*chatToolCall
	finishReason any
}

// chatFromStream adds chat.completion.chunk events up to a
// chat.completion; nil when the stream holds no chunk. Each event, each
// choice and each delta is walked once, member by member, skipping nested
// values it does not read, rather than looked up field by field: it runs
// once per streamed request. Where a member repeats, the first counts.
// An event that repeats the one before it but for its text (see
// textTemplate) only adds that text.
func chatFromStream(stream []byte) *chatCompletion {
	var out *chatCompletion
	choices := map[int64]*chatChoice{}
	var tmpl textTemplate
	sse.EachData(stream, func(data []byte) {
		if tmpl.add(data) {
			return
		}
		var object, id, created, model, fp, usage, list, last []byte
		reqbody.Members(data, func(k, v []byte) bool {
			last = nil
			switch reqbody.KeyName(k) {
			case "object":
				firstRaw(&object, v)
			case "id":
				firstRaw(&id, v)
			case "created":
				firstRaw(&created, v)
			case "model":
				firstRaw(&model, v)
			case "system_fingerprint":
				firstRaw(&fp, v)
			case "usage":
				firstRaw(&usage, v)
			case "choices":
				firstRaw(&list, v)
			default:
				last = v // read by nothing
			}
			return true
		})
		if rawStr(object) != "chat.completion.chunk" && list == nil {
			return
		}
		if out == nil {
			out = &chatCompletion{ID: rawStr(id), Object: "chat.completion", Created: rawValue(created).Int(), Model: rawStr(model)}
		}
		if reqbody.IsString(fp) {
			f := rawStr(fp)
			out.SystemFingerprint = &f
		}
		if len(usage) > 0 && usage[0] == '{' {
			out.Usage = json.RawMessage(usage)
		}
		n, only := 0, chatDelta{}
		eachValue(list, func(c []byte) {
			only = addChatChoiceDelta(choices, c)
			n++
		})
		if n == 1 && reqbody.IsArray(list) {
			tmpl.learn(data, only, last)
		}
	})
	if out == nil {
		return nil
	}
	out.Choices = chatChoiceList(choices)
	return out
}

// chatCompletion is the chat.completion a chat stream adds up to. Its
// fields are in the order of their JSON names, so it marshals as a map of
// the same members would, in less time.
type chatCompletion struct {
	Choices           []chatCompletionChoice `json:"choices"`
	Created           int64                  `json:"created"`
	ID                string                 `json:"id"`
	Model             string                 `json:"model"`
	Object            string                 `json:"object"`
	SystemFingerprint *string                `json:"system_fingerprint,omitempty"`
	Usage             json.RawMessage        `json:"usage,omitempty"`
}

// chatCompletionChoice is one choice of a chatCompletion.
type chatCompletionChoice struct {
	FinishReason any                   `json:"finish_reason"`
	Index        int64                 `json:"index"`
	Message      chatCompletionMessage `json:"message"`
}

// chatCompletionMessage is the message of a chatCompletionChoice; Content
// is null when the choice sent no text.
type chatCompletionMessage struct {
	Content   *string         `json:"content"`
	Refusal   string          `json:"refusal,omitempty"`
	Role      string          `json:"role"`
	ToolCalls []*chatToolCall `json:"tool_calls,omitempty"`
}

// textTemplate is a stream event whose only lasting effect was adding
// its text: a chat chunk of one choice whose delta has a text ("content")
// and nothing else that adds up (no refusal, no tool calls), or a
// Messages text, thinking or tool-input delta. Providers send the answer as
// a run of such chunks that differ only in that text, and some also in
// the string value of a last member that nothing reads (OpenAI's
// "obfuscation" padding). A chunk that is the template's bytes with other
// strings in those places, strings holding no quote and no backslash,
// walks exactly as the template did: the same members, the same values
// but for those two, of which the text is its bytes as they are.
// Everything but the text was either set by the template itself or kept
// from before it, and sets the same again, so adding the text is all such
// a chunk does, as long as no other chunk came between (any chunk that
// does not match forgets the template).
type textTemplate struct {
	// head is the template up to and including the text's opening
	// quote; mid runs from the text's closing quote to the end, or, with
	// a free last member, up to and including that value's opening
	// quote, and tail from its closing quote to the end (empty without a
	// free last member).
	head, mid, tail []byte
	// dst is where the text goes; nil when there is no template.
	dst *strings.Builder
}

// add adds data's text to the template's destination when data is the
// template but for its text (and free member), and reports whether it
// did. Otherwise it forgets the template: data is walked in full and may
// become the next.
func (t *textTemplate) add(data []byte) bool {
	if t.dst == nil {
		return false
	}
	if len(data) >= len(t.head)+len(t.mid)+len(t.tail) && bytes.HasPrefix(data, t.head) && bytes.HasSuffix(data, t.tail) {
		rest := data[len(t.head) : len(data)-len(t.tail)]
		// The text holds no quote, so the first quote is its end.
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.HasPrefix(rest[i:], t.mid) {
			text, pad := rest[:i], rest[i+len(t.mid):]
			if bytes.IndexByte(text, '\\') < 0 && (len(t.tail) > 0 || len(pad) == 0) &&
				bytes.IndexByte(pad, '"') < 0 && bytes.IndexByte(pad, '\\') < 0 {
				t.dst.Write(text)
				return true
			}
		}
	}
	t.dst = nil
	return false
}

// learn makes data, a chunk just walked whose one choice's delta was d,
// the template when d qualifies (see textTemplate). last is the raw value
// of the chunk's last member when nothing reads it, else nil.
func (t *textTemplate) learn(data []byte, d chatDelta, last []byte) {
	if d.ch != nil && d.onlyText {
		t.learnText(data, d.content, &d.ch.content, last)
	}
}

// learnText makes data, a chunk just walked whose only lasting effect was
// adding the string value text (a slice of data) to dst, the template.
// last is as for learn.
func (t *textTemplate) learnText(data, text []byte, dst *strings.Builder, last []byte) {
	if !reqbody.IsString(text) {
		return
	}
	i, ok := offsetIn(data, text)
	if !ok {
		return
	}
	t.head, t.mid, t.tail, t.dst = data[:i+1], data[i+len(text)-1:], nil, dst
	if j, ok := offsetIn(data, last); ok && reqbody.IsString(last) && j > i {
		t.mid, t.tail = data[i+len(text)-1:j+1], data[j+len(last)-1:]
	}
}

// offsetIn returns where part, a slice of data, starts in it; false when
// part is empty or not a part of data (the walk only hands out slices of
// the data it walks).
func offsetIn(data, part []byte) (int, bool) {
	if len(part) == 0 {
		return 0, false
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(part))) - uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	if off >= uintptr(len(data)) || int(off)+len(part) > len(data) {
		return 0, false
	}
	return int(off), true
}

// chatDelta is what addChatChoiceDelta did with one choice of a chunk.
type chatDelta struct {
	// ch is the choice the delta went to.
	ch *chatChoice
	// content is the delta's raw text value; nil when it has none.
	content []byte
	// onlyText reports that the text was all the delta added up: it had
	// no refusal text and no tool calls.
	onlyText bool
}

// firstRaw keeps the raw value v in r unless r already holds one, as
// gjson's lookups answer a repeated member's first occurrence.
func firstRaw(r *[]byte, v []byte) {
	if *r == nil {
		*r = v
	}
}

// rawValue parses a raw value of an event, sharing its bytes as parseData
// does; a missing value (nil) is gjson's missing result.
func rawValue(raw []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
}

// rawStr is the text of a raw JSON string value ("" for any other value,
// as gjson's Str). Without escapes it shares the value's bytes.
func rawStr(raw []byte) string {
	if !reqbody.IsString(raw) {
		return ""
	}
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(s), len(s))
	}
	return rawValue(raw).Str
}

// eachValue calls fn with each value gjson's ForEach hands over for the
// raw value raw: an array's elements, an object's member values, or a
// present scalar (null included) itself.
func eachValue(raw []byte, fn func(v []byte)) {
	eachRawMember(raw, func(_ string, v []byte) { fn(v) })
}

// eachRawMember calls fn with the name and raw value of each member of
// raw as gjson's ForEach hands them over: an object's members; an
// array's elements, or a present scalar (null included) itself, under
// the empty name.
func eachRawMember(raw []byte, fn func(name string, v []byte)) {
	switch {
	case raw == nil:
	case raw[0] == '{':
		reqbody.Members(raw, func(k, v []byte) bool { fn(reqbody.KeyName(k), v); return true })
	case raw[0] == '[':
		reqbody.Elements(raw, func(e []byte) bool { fn("", e); return true })
	default:
		fn("", raw)
	}
}

// chatChoiceList returns the choices a chat stream added up to, in index
// order, as the choices of a chat completion.
func chatChoiceList(choices map[int64]*chatChoice) []chatCompletionChoice {
	list := make([]chatCompletionChoice, 0, len(choices))
	for _, ch := range choices {
		m := chatCompletionMessage{Role: ch.role, Refusal: ch.refusal.String()}
		if ch.content.Len() > 0 {
			text := ch.content.String()
			m.Content = &text
		}
		if len(ch.toolCalls) > 0 {
			for _, k := range slices.Sorted(maps.Keys(ch.toolCalls)) {
				m.ToolCalls = append(m.ToolCalls, ch.toolCalls[k])
			}
		}
		list = append(list, chatCompletionChoice{FinishReason: ch.finishReason, Index: ch.index, Message: m})
	}
	sort.Slice(list, func(a, b int) bool { return list[a].Index < list[b].Index })
	return list
}

// addChatChoiceDelta adds one choice of a chat chunk (its index, delta
// and finish reason), raw as the chunk holds it, to the choices being
// assembled, and says what it added.
func addChatChoiceDelta(choices map[int64]*chatChoice, c []byte) chatDelta {
	var index, delta, fr []byte
	reqbody.Members(c, func(k, v []byte) bool {
		switch reqbody.KeyName(k) {
		case "index":
			firstRaw(&index, v)
		case "delta":
			firstRaw(&delta, v)
		case "finish_reason":
			firstRaw(&fr, v)
		}
		return true
	})
	i := rawValue(index).Int()
	ch := choices[i]
	if ch == nil {
		ch = &chatChoice{index: i, role: "assistant"}
		choices[i] = ch
	}
	var role, content, refusal, calls []byte
	reqbody.Members(delta, func(k, v []byte) bool {
		switch reqbody.KeyName(k) {
		case "role":
			firstRaw(&role, v)
		case "content":
			firstRaw(&content, v)
		case "refusal":
			firstRaw(&refusal, v)
		case "tool_calls":
			firstRaw(&calls, v)
		}
		return true
	})
	if r := rawStr(role); r != "" {
		ch.role = r
	}
	ch.content.WriteString(rawStr(content))
	ch.refusal.WriteString(rawStr(refusal))
	eachValue(calls, func(tc []byte) { addChatToolCallDelta(ch, rawValue(tc)) })
	if reqbody.IsString(fr) {
		ch.finishReason = rawStr(fr)
	}
	return chatDelta{ch: ch, content: content, onlyText: calls == nil && rawStr(refusal) == ""}
}

// addChatToolCallDelta adds one tool call fragment to choice ch.
func addChatToolCallDelta(ch *chatChoice, tc gjson.Result) {
	if ch.toolCalls == nil {
		ch.toolCalls = map[int64]*chatToolCall{}
	}
	ti := tc.Get("index").Int()
	call := ch.toolCalls[ti]
	if call == nil {
		call = &chatToolCall{Type: "function"}
		ch.toolCalls[ti] = call
	}
	if id := tc.Get("id").Str; id != "" {
		call.ID = id
	}
	if t := tc.Get("type").Str; t != "" {
		call.Type = t
	}
	if n := tc.Get("function.name").Str; n != "" {
		call.Function.Name += n
	}
	call.Function.Arguments += tc.Get("function.arguments").Str
}

// responseFromStream returns the response object of the stream's final
// response.completed, response.incomplete or response.failed event; nil
// without one.
func responseFromStream(stream []byte) json.RawMessage {
	var out json.RawMessage
	sse.EachData(stream, func(data []byte) {
		ev := parseData(data)
		switch ev.Get("type").Str {
		case "response.completed", "response.incomplete", "response.failed":
			if r := ev.Get("response"); r.IsObject() {
				out = append(json.RawMessage(nil), r.Raw...)
			}
		}
	})
	return out
}
