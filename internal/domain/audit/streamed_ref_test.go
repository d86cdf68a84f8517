package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// chatFromStreamReference is the straightforward form of chatFromStream, one
// gjson lookup per field, kept to check it against. It adds chat.completion.chunk events up to a
// chat.completion; nil when the stream holds no chunk.
func chatFromStreamReference(stream []byte) map[string]any {
	var out map[string]any
	choices := map[int64]*chatChoice{}
	sse.EachData(stream, func(data []byte) {
		ev := gjson.ParseBytes(data)
		if ev.Get("object").Str != "chat.completion.chunk" && !ev.Get("choices").Exists() {
			return
		}
		if out == nil {
			out = map[string]any{"id": ev.Get("id").Str, "object": "chat.completion",
				"created": ev.Get("created").Int(), "model": ev.Get("model").Str}
		}
		if fp := ev.Get("system_fingerprint"); fp.Type == gjson.String {
			out["system_fingerprint"] = fp.Str
		}
		if u := ev.Get("usage"); u.IsObject() {
			out["usage"] = json.RawMessage(u.Raw)
		}
		ev.Get("choices").ForEach(func(_, c gjson.Result) bool {
			i := c.Get("index").Int()
			ch := choices[i]
			if ch == nil {
				ch = &chatChoice{index: i, role: "assistant"}
				choices[i] = ch
			}
			d := c.Get("delta")
			if r := d.Get("role"); r.Str != "" {
				ch.role = r.Str
			}
			ch.content.WriteString(d.Get("content").Str)
			ch.refusal.WriteString(d.Get("refusal").Str)
			d.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				addChatToolCallDelta(ch, tc)
				return true
			})
			if fr := c.Get("finish_reason"); fr.Type == gjson.String {
				ch.finishReason = fr.Str
			}
			return true
		})
	})
	if out == nil {
		return nil
	}
	out["choices"] = chatChoiceListReference(choices)
	return out
}

// chatChoiceListReference is chatChoiceList as maps of the members,
// which json.Marshal writes in the order of their names.
func chatChoiceListReference(choices map[int64]*chatChoice) []any {
	list := make([]any, 0, len(choices))
	for _, i := range slices.Sorted(maps.Keys(choices)) {
		ch := choices[i]
		msg := map[string]any{"role": ch.role, "content": nil}
		if ch.content.Len() > 0 {
			msg["content"] = ch.content.String()
		}
		if ch.refusal.Len() > 0 {
			msg["refusal"] = ch.refusal.String()
		}
		if len(ch.toolCalls) > 0 {
			var calls []*chatToolCall
			for _, k := range slices.Sorted(maps.Keys(ch.toolCalls)) {
				calls = append(calls, ch.toolCalls[k])
			}
			msg["tool_calls"] = calls
		}
		list = append(list, map[string]any{"index": ch.index, "message": msg, "finish_reason": ch.finishReason})
	}
	return list
}

// chatStreamCases are chat streams for comparing chatFromStream with its
// reference: the recorded provider streams and shapes they do not show.
func chatStreamCases(t testing.TB) [][]byte {
	cases := [][]byte{
		[]byte("data: {\"id\":\"a\",\"object\":\"chat.completion.chunk\",\"id\":\"b\",\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\",\"content\":\"y\",\"refusal\":\"no\"},\"finish_reason\":\"stop\"},{\"index\":0,\"delta\":{\"role\":\"user\"}}],\"system_fingerprint\":\"fp\"}\n\n"),
		[]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":2,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},{\"index\":0,\"id\":\"c\",\"type\":\"custom\"}]}}]}\n\ndata: [1,2]\n\ndata: \"s\"\n\ndata: {\"object\":\"other\"}\n\n"),
		[]byte("data: {\"object\":\"chat.completion.chunk\",\"created\":\"soon\",\"usage\":[1],\"choices\":{}}\n\n"),
		[]byte("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":null,\"finish_reason\":7}],\"usage\":{\"total_tokens\":1}}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tail\"}}],\"usage\":{\"total_tokens\":2}}\n"),
		[]byte("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"\\u00e9\\n\"}}],\"\\u006fbject\":\"x\"}\n\n"),
		// Runs of chunks that differ only in their text, and what may
		// come between them or pass for one of them.
		textRun(`{"id":"r","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"%s"},"finish_reason":null}],"usage":{"total_tokens":3}}`,
			"a", "b ", "", "c\\\"d", "e", `f","refusal":"r`, "g", "\\u00e9", "h"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s","refusal":"no"}}]}`, "a", "b", "c"),
		// A last member nothing reads may differ too; one that is read,
		// or is not a string, may not.
		textRun(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"%s"}}],"obfuscation":"%s"}`,
			"a", "p1", "b", "p22", "c", "p333", "d", `x\"y`, "e", "p", "f", `q","usage":{"total_tokens":9},"z":"r`,
			"g", "s", "h", `t","choices":[{"index":1,"delta":{"content":"X"}}],"w":"u`, "i", "v", `j\n`, "w", "k", "x"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}],"system_fingerprint":"%s"}`, "a", "fp1", "b", "fp2", "c", "fp2"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}],"n":%s}`, "a", "1", "b", "2", "c", "3"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}],"choices":"%s"}`, "a", "x", "b", "y"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s","refusal":""}}]}`, "a", "b", "c"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s","tool_calls":[{"index":0,"function":{"arguments":"x"}}]}}]}`, "a", "b"),
		textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}},{"index":1,"delta":{"content":"z"}}]}`, "a", "b"),
		textRun(`{"choices":{"x":{"index":0,"delta":{"content":"%s"}}}}`, "a", "b"),
		[]byte(string(textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}]}`, "a", "b")) +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"tool\"}}]}\n\n" +
			string(textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}]}`, "c")) +
			string(textRun(`{"choices":[{"index":1,"delta":{"content":"%s"}}]}`, "d", "e")) +
			string(textRun(`{"choices":[{"index":0,"delta":{"content":"%s"}}]}`, "f", "g"))),
	}
	for _, fam := range fixtures.Families() {
		for _, name := range fixtures.Glob(fam, "chat*stream*") {
			cases = append(cases, fixtures.Must(t, fam, name))
		}
	}
	return cases
}

// textRun is a chat stream of events of the same format, each with the
// next of args in place of each of its %s, in turn.
func textRun(format string, args ...string) []byte {
	var sse []byte
	n := strings.Count(format, "%s")
	for ; len(args) >= n; args = args[n:] {
		ev := format
		for _, a := range args[:n] {
			ev = strings.Replace(ev, "%s", a, 1)
		}
		sse = append(append(append(sse, "data: "...), ev...), "\n\n"...)
	}
	return sse
}

func TestChatFromStreamMatchesReference(t *testing.T) {
	cases := chatStreamCases(t)
	if len(cases) < 8 {
		t.Fatalf("only %d chat streams", len(cases))
	}
	for i, sse := range cases {
		got, _ := json.Marshal(chatFromStream(sse))
		want, _ := json.Marshal(chatFromStreamReference(sse))
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// FuzzChatFromStream checks chatFromStream against its reference.
func FuzzChatFromStream(f *testing.F) {
	for _, sse := range chatStreamCases(f) {
		f.Add(sse)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		got, _ := json.Marshal(chatFromStream(stream))
		// gjson's lookups find members in malformed text too, a walk
		// stops at the damage: the two agree on events that are JSON.
		valid := true
		sse.EachData(stream, func(data []byte) { valid = valid && gjson.ValidBytes(data) })
		if !valid {
			return
		}
		want, _ := json.Marshal(chatFromStreamReference(stream))
		if string(got) != string(want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkChatFromStreamOpenAI adds up OpenAI's recorded stream, whose
// chunks also differ in a padding member.
func BenchmarkChatFromStreamOpenAI(b *testing.B) {
	sse := fixtures.Must(b, "openai", "chat_completion_stream.txt")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(chatFromStream(sse)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatFromStream(b *testing.B) {
	var sse []byte
	for i := range 35 {
		sse = fmt.Appendf(sse, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"mock-chat\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word%d \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	sse = append(sse, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"mock-chat\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":35,\"total_tokens\":45}}\n\ndata: [DONE]\n\n"...)
	for _, impl := range []struct {
		name string
		fn   func([]byte) any
	}{{"walk", func(b []byte) any { return chatFromStream(b) }}, {"reference", func(b []byte) any { return chatFromStreamReference(b) }}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(impl.fn(sse)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestTextTemplate(t *testing.T) {
	choices := map[int64]*chatChoice{}
	learnt := []byte(`{"choices":[{"index":0,"delta":{"content":"one"}}]}`)
	var tmpl textTemplate
	if tmpl.add(learnt) {
		t.Fatal("added before learning")
	}
	choice := learnt[len(`{"choices":[`) : len(learnt)-len(`]}`)]
	tmpl.learn(learnt, addChatChoiceDelta(choices, choice), nil)
	if tmpl.dst == nil {
		t.Fatal("a text-only chunk was not learnt")
	}
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{"choices":[{"index":0,"delta":{"content":" two"}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":""}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"a\"b"}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":"three"}}]}`, false}, // forgotten after the refusal above
	} {
		if got := tmpl.add([]byte(tc.data)); got != tc.want {
			t.Errorf("add(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
	if got := choices[0].content.String(); got != "one two" {
		t.Errorf("text %q, want %q", got, "one two")
	}
	// A last member nothing reads (OpenAI's padding) may differ.
	padded := []byte(`{"choices":[{"index":0,"delta":{"content":"one"}}],"obfuscation":"ab"}`)
	var pt textTemplate
	pc := padded[len(`{"choices":[`) : len(padded)-len(`],"obfuscation":"ab"}`)]
	pt.learn(padded, addChatChoiceDelta(choices, pc), padded[len(padded)-len(`"ab"}`):len(padded)-1])
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{"choices":[{"index":0,"delta":{"content":" two"}}],"obfuscation":"xyz"}`, true},
		{`{"choices":[{"index":0,"delta":{"content":" three"}}],"obfuscation":""}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"four"}}],"obfuscation":"x","usage":{"total_tokens":1}}`, false},
	} {
		if got := pt.add([]byte(tc.data)); got != tc.want {
			t.Errorf("add(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
	if got := choices[0].content.String(); got != "one twoone two three" {
		t.Errorf("text %q", got)
	}
	// Not learnt: a tool call, a refusal, a text that is not a string.
	for _, c := range []string{
		`{"index":0,"delta":{"content":"x","tool_calls":[]}}`,
		`{"index":0,"delta":{"content":"x","refusal":"no"}}`,
		`{"index":0,"delta":{"content":null}}`,
	} {
		var tm textTemplate
		b := []byte(c)
		tm.learn(b, addChatChoiceDelta(choices, b), nil)
		if tm.dst != nil {
			t.Errorf("learnt %s", c)
		}
	}
}
