package responses

import (
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// codexFirstRequest is the first request Codex CLI sends (captured from
// the CLI, identifiers replaced): function tools, a namespace of function
// tools, a web_search tool, client_metadata and developer messages.
func codexFirstRequest(t *testing.T) []byte {
	t.Helper()
	body, err := os.ReadFile("testdata/codex-0.169.0-first-request.json")
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// withoutTool returns body without the tools of type typ.
func withoutTool(t *testing.T, body []byte, typ string) []byte {
	t.Helper()
	var kept []string
	for _, tool := range gjson.GetBytes(body, "tools").Array() {
		if tool.Get("type").Str != typ {
			kept = append(kept, tool.Raw)
		}
	}
	out, err := sjson.SetRawBytes(body, "tools", []byte("["+strings.Join(kept, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCodexFirstRequestDropsWebSearch: the web_search tool runs on the
// provider's servers; Codex sends it by default, so the request goes on
// without it, the drop reported as a revision; a request that forces it
// (tool_choice) is refused with a message naming it and the tool's place.
func TestCodexFirstRequestDropsWebSearch(t *testing.T) {
	body := codexFirstRequest(t)
	chat, revs, err := ResponsesToChatRequestRevised(body, translate.ChatTarget{})
	if err != nil || len(revs) != 1 || revs[0].Rewriter != DroppedToolsRewriter || revs[0].Detail != `{"dropped":["web_search"]}` {
		t.Fatalf("revisions %+v, error %v", revs, err)
	}
	for _, tool := range gjson.GetBytes(chat, "tools").Array() {
		if tool.Get("type").Str != "function" {
			t.Fatalf("a non-function tool went upstream: %s", tool.Raw)
		}
	}
	forced, err := sjson.SetRawBytes(body, "tool_choice", []byte(`{"type":"web_search"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ResponsesToChatRequest(forced, translate.ChatTarget{})
	te, ok := err.(*translate.Error)
	if !ok {
		t.Fatalf("want a *translate.Error, got %v", err)
	}
	if !strings.Contains(te.Message, "'web_search'") || !strings.HasPrefix(te.Param, "tools[") {
		t.Errorf("refusal does not name the tool: %+v", te)
	}
}

// TestCodexFirstRequestTranslates: without the provider-side tool, the
// request translates onto Chat Completions and onto Messages;
// client_metadata is dropped and the namespace's tools become function
// tools under qualified names.
func TestCodexFirstRequestTranslates(t *testing.T) {
	body := withoutTool(t, codexFirstRequest(t), "web_search")
	if !gjson.GetBytes(body, "client_metadata").Exists() {
		t.Fatal("the fixture lost client_metadata")
	}
	chat, err := ResponsesToChatRequest(body, translate.ChatTarget{})
	if err != nil {
		t.Fatalf("onto Chat Completions: %v", err)
	}
	if gjson.GetBytes(chat, "client_metadata").Exists() {
		t.Error("client_metadata was forwarded to a Chat upstream")
	}
	names := map[string]bool{}
	for _, tool := range gjson.GetBytes(chat, "tools").Array() {
		names[tool.Get("function.name").Str] = true
	}
	want := 0
	for _, tool := range gjson.GetBytes(body, "tools").Array() {
		switch tool.Get("type").Str {
		case "function":
			want++
			if !names[tool.Get("name").Str] {
				t.Errorf("function tool %s missing", tool.Get("name").Str)
			}
		case "namespace":
			ns := tool.Get("name").Str
			for _, f := range tool.Get("tools").Array() {
				want++
				if q := ns + "__" + f.Get("name").Str; !names[q] {
					t.Errorf("namespaced tool %s missing (have %v)", q, names)
				}
			}
		}
	}
	if len(names) != want || want == 0 {
		t.Errorf("%d chat tools, want %d", len(names), want)
	}
	if _, err := ResponsesToMessagesRequest(body, 4096); err != nil {
		t.Fatalf("onto Messages: %v", err)
	}
}

// nsRequest is a Responses request with one namespace of two tools.
const nsRequest = `{"model":"m","input":[{"type":"message","role":"user","content":"go"},
	{"type":"function_call","call_id":"c0","name":"spawn","namespace":"agents","arguments":"{}"},
	{"type":"function_call_output","call_id":"c0","output":"ok"}],
	"tools":[{"type":"function","name":"exec"},{"type":"namespace","name":"agents","description":"d",
	"tools":[{"type":"function","name":"spawn","parameters":{"type":"object"}},{"type":"function","name":"close","strict":true}]}]}`

func TestNamespaceToolsFlattened(t *testing.T) {
	chat, err := ResponsesToChatRequest([]byte(nsRequest), translate.ChatTarget{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c0","type":"function","function":{"name":"agents__spawn","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c0","content":"ok"}],
		"tools":[{"type":"function","function":{"name":"exec"}},
		{"type":"function","function":{"name":"agents__spawn","parameters":{"type":"object"}}},
		{"type":"function","function":{"name":"agents__close","strict":true}}]}`
	if !jSONEqual(t, chat, []byte(want)) {
		t.Errorf("got  %s\nwant %s", chat, want)
	}
	empty := `{"model":"m","input":"x","tool_choice":"auto","tools":[{"type":"namespace","name":"n","tools":[]}]}`
	if chat, err := ResponsesToChatRequest([]byte(empty), translate.ChatTarget{}); err != nil || !jSONEqual(t, chat, []byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`)) {
		t.Errorf("empty namespace: %s %v", chat, err)
	}
	for _, bad := range []string{
		`{"model":"m","input":"x","tools":[{"type":"namespace","tools":[]}]}`,
		`{"model":"m","input":"x","tools":[{"type":"namespace","name":"n","tools":[{"type":"web_search"}]}]}`,
		`{"model":"m","input":"x","tools":[{"type":"namespace","name":"n"}]}`,
	} {
		if _, err := ResponsesToChatRequest([]byte(bad), translate.ChatTarget{}); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestNamespaceCallsMappedBack(t *testing.T) {
	chat := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",
		"message":{"role":"assistant","content":null,"tool_calls":[
		{"id":"c1","type":"function","function":{"name":"agents__close","arguments":"{}"}},
		{"id":"c2","type":"function","function":{"name":"exec","arguments":"{}"}}]}}],
		"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	out, _, err := ChatToResponsesResponse([]byte(chat), []byte(nsRequest))
	if err != nil {
		t.Fatal(err)
	}
	calls := gjson.GetBytes(out, `output.#(type=="function_call")#`).Array()
	if len(calls) != 2 {
		t.Fatalf("calls: %s", out)
	}
	if calls[0].Get("name").Str != "close" || calls[0].Get("namespace").Str != "agents" {
		t.Errorf("namespaced call not mapped back: %s", calls[0].Raw)
	}
	if calls[1].Get("name").Str != "exec" || calls[1].Get("namespace").Exists() {
		t.Errorf("plain call changed: %s", calls[1].Raw)
	}

	events, _ := runStream(t, []byte(nsRequest), chatChunks(
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"agents__spawn","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	))
	seen := 0
	for _, ev := range events {
		d := gjson.ParseBytes(ev.Data)
		for _, item := range []gjson.Result{d.Get("item"), d.Get("response.output.0")} {
			if item.Get("type").Str == "function_call" {
				seen++
				if item.Get("name").Str != "spawn" || item.Get("namespace").Str != "agents" {
					t.Errorf("%s: namespaced call not mapped back: %s", ev.Name, item.Raw)
				}
			}
		}
	}
	if seen < 3 {
		t.Errorf("saw %d function_call items in the stream", seen)
	}
}
