package audit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// messageFromStreamReference is the straightforward form of
// messageFromStream, one gjson lookup per field and the message and its
// blocks decoded into maps, kept to check it against: what the two record
// decodes to the same JSON values.
func messageFromStreamReference(stream []byte) map[string]any {
	var msg map[string]any
	type block struct {
		v       map[string]any
		text    strings.Builder
		think   strings.Builder
		partial strings.Builder
	}
	blocks := map[int64]*block{}
	var usage map[string]any
	sse.EachData(stream, func(data []byte) {
		ev := parseData(data)
		switch ev.Get("type").Str {
		case "message_start":
			_ = json.Unmarshal([]byte(ev.Get("message").Raw), &msg)
			if u, ok := msg["usage"].(map[string]any); ok {
				usage = u
			}
		case "content_block_start":
			b := &block{}
			_ = json.Unmarshal([]byte(ev.Get("content_block").Raw), &b.v)
			if b.v == nil {
				b.v = map[string]any{}
			}
			blocks[ev.Get("index").Int()] = b
		case "content_block_delta":
			b := blocks[ev.Get("index").Int()]
			if b == nil {
				return
			}
			d := ev.Get("delta")
			switch d.Get("type").Str {
			case "text_delta":
				b.text.WriteString(d.Get("text").Str)
			case "thinking_delta":
				b.think.WriteString(d.Get("thinking").Str)
			case "signature_delta":
				b.v["signature"] = d.Get("signature").Str
			case "input_json_delta":
				b.partial.WriteString(d.Get("partial_json").Str)
			}
		case "message_delta":
			if msg == nil {
				return
			}
			ev.Get("delta").ForEach(func(k, v gjson.Result) bool {
				msg[k.Str] = v.Value()
				return true
			})
			if usage == nil {
				usage = map[string]any{}
			}
			ev.Get("usage").ForEach(func(k, v gjson.Result) bool {
				if v.Type != gjson.Null {
					usage[k.Str] = v.Value()
				}
				return true
			})
		}
	})
	if msg == nil {
		return nil
	}
	idx := make([]int64, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	content := make([]any, 0, len(idx))
	for _, i := range idx {
		b := blocks[i]
		if b.text.Len() > 0 {
			prev, _ := b.v["text"].(string)
			b.v["text"] = prev + b.text.String()
		}
		if b.think.Len() > 0 {
			prev, _ := b.v["thinking"].(string)
			b.v["thinking"] = prev + b.think.String()
		}
		if b.partial.Len() > 0 {
			var input any
			if json.Unmarshal([]byte(b.partial.String()), &input) == nil {
				b.v["input"] = input
			}
		}
		content = append(content, b.v)
	}
	msg["content"] = content
	if usage != nil {
		msg["usage"] = usage
	}
	return msg
}

// textRunCase is the case of messageStreamCases with runs of text deltas.
const textRunCase = 13

// messageStreamCases are the Messages streams messageFromStream is checked
// on against its reference: the recorded fixtures and streams made to
// reach each rule, runs of text deltas among them.
func messageStreamCases(t testing.TB) [][]byte {
	ev := func(data ...string) []byte {
		var sse []byte
		for _, d := range data {
			sse = append(sse, "event: x\ndata: "+d+"\n\n"...)
		}
		return sse
	}
	start := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`
	stop := `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7,"cache_read_input_tokens":null}}`
	cases := [][]byte{
		ev(start, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo \"you\"\n"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d\ude00 <&>"}}`,
			`{"type":"content_block_stop","index":0}`, stop, `{"type":"message_stop"}`),
		// Thinking with its signature, a tool call, blocks out of order.
		ev(start, `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"pre ","signature":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" think"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig1"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig2"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"/tmp/a\", \"n\": 1.50}"}}`,
			`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"no block"}}`,
			stop),
		// Tool input that never became JSON; a signature that is not a
		// string; a block started again over an earlier one.
		ev(start, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
			`{"type":"content_block_start","index":3,"content_block":{"type":"text","text":7}}`,
			`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}`,
			`{"type":"content_block_delta","index":3,"delta":{"type":"signature_delta","signature":5}}`,
			`{"type":"content_block_start","index":3,"content_block":{"type":"text","text":"again "}}`,
			`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"y"}}`),
		// Messages started twice, cleared, not objects; usage from
		// message_delta alone; deltas that are not objects.
		ev(`{"type":"message_start","message":{"id":"a","usage":{"input_tokens":1}}}`,
			`{"type":"message_delta","delta":{"stop_reason":"x"},"usage":{"output_tokens":2}}`,
			`{"type":"message_start","message":{"model":"m","usage":null}}`,
			`{"type":"message_delta","delta":[1,2],"usage":5}`),
		ev(`{"type":"message_start","message":{"id":"a"}}`, `{"type":"message_start","message":null}`,
			`{"type":"message_delta","delta":{"stop_reason":"x"}}`),
		ev(`{"type":"message_start","message":null}`, `{"type":"message_start","message":{"id":"b","id":"c"}}`,
			`{"type":"message_delta","delta":null,"usage":{"a":null,"b":[1],"b":{"c":1}}}`),
		ev(`{"type":"message_start","message":"text"}`, `{"type":"message_start"}`),
		ev(`{"type":"message_start","message":{"usage":{"input_tokens":1}}}`,
			`{"type":"message_delta","usage":{"output_tokens":3}}`,
			`{"type":"message_start","message":{"usage":{"input_tokens":2},"usage":"no"}}`),
		ev(`{"type":"message_start","type":"ping","message":{"id":"first type counts"}}`, `{"t\u0079pe":"message_start","message":{"m\u006fdel":"escaped keys"}}`),
		ev(`{"type":"content_block_start","index":0,"content_block":{"type":"text"}}`, `{"type":"message_start","message":{}}`),
		// A usage object a message_delta's delta puts in the message
		// becomes the usage once a message_start reads it.
		ev(`{"type":"message_start","message":{}}`, `{"type":"message_delta","delta":{"usage":{"a":1}}}`, `{"type":"message_start"}`),
		ev(`{"type":"message_start","message":{"usage":{"input_tokens":1}}}`,
			`{"type":"message_delta","delta":{"usage":{"x":1}},"usage":{"output_tokens":2}}`,
			`{"type":"message_start","message":{"id":"again"}}`, `{"type":"message_delta","usage":{"y":3}}`),
		ev(`{"type":"message_start","message":{"usage":{"input_tokens":1}}}`, `{"type":"message_delta","usage":{"output_tokens":2}}`,
			`{"type":"message_start","message":{"id":"again"}}`, `{"type":"message_start","message":null}`,
			`{"type":"message_start","message":{"usage":{"input_tokens":5}}}`),
		// Runs of text deltas, with what may come between them or pass
		// for one of them.
		ev(start, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`),
	}
	run := func(format string, args ...string) string {
		var s string
		for _, a := range args {
			s += "event: content_block_delta\ndata: " + fmt.Sprintf(format, a) + "\n\n"
		}
		return s
	}
	last := textRunCase
	if last != len(cases)-1 {
		t.Fatalf("the text runs are case %d, not %d", len(cases)-1, textRunCase)
	}
	cases[last] = append(cases[last], run(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}`,
		"a", "b ", "", `c\"d`, "e", `f","type":"x`, "g", `\u00e9`, "h", `i"},"index":1,"x":{"y":"`, "j")...)
	cases[last] = append(cases[last], run(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"%s"}}`, "k", "l")...)
	cases[last] = append(cases[last], "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\"}}\n\n"...)
	cases[last] = append(cases[last], run(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"%s"}}`, "m", "n")...)
	cases[last] = append(cases[last], run(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"%s"}}`, "o", "p")...)
	cases[last] = append(cases[last], run(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s","text":"second"}}`, "q", "r")...)
	cases = append(cases, longMessagesStream(40), manyMembersStream(40))
	for _, fam := range fixtures.Families() {
		for _, name := range fixtures.Glob(fam, "messages*stream*") {
			cases = append(cases, fixtures.Must(t, fam, name))
		}
	}
	return cases
}

// longMessagesStream is a Messages stream of n text deltas and n/4 tool
// input fragments, as a coding agent's turn sends them.
func longMessagesStream(n int) []byte {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-20250514\",\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":3}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word%d \"}}\n\n", i)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}}\n\n")
	frags := max(n/4, 2)
	for i := range frags {
		frag := fmt.Sprint(i)
		switch i {
		case 0:
			frag = `{\"file_path\": \"/tmp/x`
		case frags - 1:
			frag = `\"}`
		}
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"%s\"}}\n\n", frag)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":250}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(b.String())
}

// manyMembersStream is a Messages stream whose message, usage and blocks
// have n members each, some repeated, and that has n blocks, started and
// added to out of order, then some started again.
func manyMembersStream(n int) []byte {
	obj := func(prefix string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"%s%d":%d,`, prefix, i%(n-5), i)
		}
		b.WriteString(`"last":true}`)
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "data: {\"type\":\"message_start\",\"message\":%s}\n\n", strings.Replace(obj("m"), "{", `{"usage":`+obj("u")+",", 1))
	for i := range n {
		k := (i * 7) % n
		fmt.Fprintf(&b, "data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":%s}\n\n", k, strings.Replace(obj("b"), "{", `{"text":"`+fmt.Sprint(k)+`",`, 1))
		fmt.Fprintf(&b, "data: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\"+%d\"}}\n\n", (k*3)%n, i)
	}
	// Started again once the blocks are indexed: the new one replaces
	// the old, in its place.
	for _, k := range []int{3, n - 1, 3} {
		fmt.Fprintf(&b, "data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"again\"}}\n\n", k)
		fmt.Fprintf(&b, "data: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s%d\"}}\n\n", k, k)
	}
	fmt.Fprintf(&b, "data: {\"type\":\"message_delta\",\"delta\":%s,\"usage\":%s}\n\n", obj("m"), obj("u"))
	return []byte(b.String())
}

// sameMessage fails the test unless messageFromStream records what its
// reference does for sse (the same JSON values, or nothing for both) and
// sets no member of the message or of a block twice.
func sameMessage(t *testing.T, sse []byte) {
	t.Helper()
	got := messageFromStream(sse)
	ref := messageFromStreamReference(sse)
	if (got == nil) != (ref == nil) {
		t.Fatalf("recorded %s, reference %v", got, ref)
	}
	if got == nil {
		return
	}
	want, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("recorded %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("recorded\n %s\nreference\n %s", got, want)
	}
	if name := repeatedMember(got, 3); name != "" {
		t.Fatalf("recorded %q twice in an object: %s", name, got)
	}
}

// repeatedMember returns the first name that is repeated in an object of
// the JSON text b up to depth levels of objects and arrays down (the
// message is level 1, its blocks, in the content array, level 3: their
// members are set by name, what lies deeper is kept as sent); "" when
// there is none.
func repeatedMember(b []byte, depth int) string {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	type level struct {
		seen   map[string]bool
		object bool
		key    bool // the next token of an object is a name
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
			if name, ok := tok.(string); ok {
				if n <= depth && stack[n-1].seen[name] {
					return name
				}
				stack[n-1].seen[name] = true
				stack[n-1].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
			stack = append(stack, level{seen: map[string]bool{}, object: tok == json.Delim('{'), key: tok == json.Delim('{')})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
		}
	}
}

func TestMessageFromStreamMatchesReference(t *testing.T) {
	cases := messageStreamCases(t)
	if n := len(fixtures.Glob("anthropic", "messages*stream*")); n == 0 || len(cases) < textRunCase+3+n {
		t.Fatalf("only %d cases, %d of them recorded", len(cases), n)
	}
	for i, sse := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameMessage(t, sse) })
	}
}

// TestMessageFromStreamTextRuns checks that runs of text deltas are added
// up, escapes and all, including those the template takes without a walk.
func TestMessageFromStreamTextRuns(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(messageFromStream(messageStreamCases(t)[textRunCase]), &m); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, b := range m["content"].([]any) {
		b := b.(map[string]any)
		texts = append(texts, fmt.Sprint(b["text"], "|", b["thinking"]))
	}
	// "f" and "i" came with a second type and a second index, which do
	// not count; "q" and "r" with a second text, which does not either.
	want := []string{"ab c\"defgéhijqr|op", "mn|<nil>"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("texts %q, want %q", texts, want)
	}
}

// TestMessageFromStreamNotJSON checks that a message holding a value that
// is not JSON records nothing, so that StreamedBody keeps the stream's
// text instead.
func TestMessageFromStreamNotJSON(t *testing.T) {
	for _, data := range []string{
		`{"type":"message_start","message":{"a":tru}}`,
		`{"type":"message_start","message":{"a":1}}` + "\n\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"b":[1,}}`,
		`{"type":"message_start","message":{"a":1}}` + "\n\ndata: " + `{"type":"message_delta","delta":{"c":nul}}`,
	} {
		sse := []byte("data: " + data + "\n\n")
		if got := messageFromStream(sse); got != nil {
			t.Errorf("%s: recorded %s", data, got)
		}
		var text string
		if err := json.Unmarshal(StreamedBody(StreamMessages, sse), &text); err != nil || text != string(sse) {
			t.Errorf("%s: StreamedBody did not keep the text: %q %v", data, text, err)
		}
	}
}

// surrogateEscape matches the escape of a UTF-16 surrogate.
var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// FuzzMessageFromStream checks messageFromStream against its reference.
func FuzzMessageFromStream(f *testing.F) {
	for _, sse := range messageStreamCases(f) {
		f.Add(sse)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		// gjson's lookups find members in malformed text too, a walk
		// stops at the damage: the two agree on events that are JSON.
		// Invalid UTF-8 is replaced by one U+FFFD a run here, one a
		// byte by the reference's decoder.
		// Escapes of lone surrogates (invalid Unicode) are decoded
		// differently by gjson and encoding/json, each of which both
		// forms use in places.
		valid := utf8.Valid(stream) && !surrogateEscape.Match(stream)
		sse.EachData(stream, func(data []byte) { valid = valid && gjson.ValidBytes(data) })
		if !valid {
			return
		}
		got := messageFromStream(stream)
		if got != nil && !json.Valid(got) {
			t.Fatalf("recorded invalid JSON %s", got)
		}
		var probe any
		if got != nil && json.Unmarshal(got, &probe) != nil {
			return // a number beyond float64 in tool input, kept as sent
		}
		sameMessage(t, stream)
	})
}

func BenchmarkMessageFromStream(b *testing.B) {
	for _, c := range []struct {
		name string
		sse  []byte
	}{{"recorded", fixtures.Must(b, "anthropic", "messages_stream.txt")}, {"agent-turn", longMessagesStream(200)}} {
		for _, impl := range []struct {
			name string
			fn   func([]byte) ([]byte, error)
		}{{"walk", func(sse []byte) ([]byte, error) { return messageFromStream(sse), nil }},
			{"reference", func(sse []byte) ([]byte, error) { return json.Marshal(messageFromStreamReference(sse)) }}} {
			b.Run(c.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.sse)))
				for b.Loop() {
					if _, err := impl.fn(c.sse); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestMessageTextTemplate checks that a text delta becomes the template
// and the next one of the same form is added through it, into its block.
func TestMessageTextTemplate(t *testing.T) {
	var m messageSum
	m.add([]byte(`{"type":"message_start","message":{"id":"m"}}`))
	m.add([]byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	m.add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}`))
	if m.tmpl.dst != &m.blocks[0].text {
		t.Fatal("a text delta did not become the template")
	}
	if !m.tmpl.add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" two"}}`)) {
		t.Fatal("the next text delta did not fit the template")
	}
	m.add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`))
	if m.tmpl.dst != nil {
		t.Fatal("a signature delta became the template")
	}
	if got := m.blocks[0].text.String(); got != "one two" {
		t.Errorf("text %q", got)
	}
}
