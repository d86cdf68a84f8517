package mock

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const pydanticSchema = `{"$defs":{"Step":{"properties":{"explanation":{"title":"Explanation","type":"string"},"output":{"title":"Output","type":"string"}},"required":["explanation","output"],"title":"Step","type":"object","additionalProperties":false}},"properties":{"steps":{"items":{"$ref":"#/$defs/Step"},"title":"Steps","type":"array"},"final_answer":{"title":"Final Answer","type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1},"tags":{"type":"array","items":{"type":"string","enum":["math","logic"]},"minItems":2,"maxItems":2}},"required":["steps","final_answer","confidence","tags"],"title":"MathReasoning","type":"object","additionalProperties":false}`

// userChat returns a chat request with one user message and extra
// members (raw JSON, without the leading comma).
func userChat(user, extra string) string {
	body := `{"model":"mock-chat","messages":[{"role":"user","content":` + jsonString(user) + `}]`
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

// TestResponseFormatJSONSchema: the content is a document valid against
// the schema, streamed in pieces that join to the same document.
func TestResponseFormatJSONSchema(t *testing.T) {
	sch := compileSchema(t, pydanticSchema)
	body := userChat("solve 8x + 7 = -23", `"response_format":{"type":"json_schema","json_schema":{"name":"math_reasoning","schema":`+pydanticSchema+`,"strict":true}}`)
	rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", body)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	resp := mustJSON(t, rec.Body.String())
	content := resp.Get("choices.0.message.content").Str
	validateJSON(t, sch, content)
	if !strings.Contains(content, `"final_answer":"solve 8x + 7 = -23"`) {
		t.Errorf("strings are not the user's text: %s", content)
	}
	if fr := resp.Get("choices.0.finish_reason").Str; fr != "stop" {
		t.Errorf("finish_reason = %q", fr)
	}
	if got, want := resp.Get("usage.completion_tokens").Int(), int64(estimateTokens(content)); got != want {
		t.Errorf("completion_tokens = %d, want %d", got, want)
	}
	if again := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String()).Get("choices.0.message.content").Str; again != content {
		t.Errorf("not deterministic:\n%s\n%s", content, again)
	}

	streamed := strings.Replace(body, `{"model"`, `{"stream":true,"stream_options":{"include_usage":true},"model"`, 1)
	rec = do(t, Options{}, http.MethodPost, "/v1/chat/completions", streamed)
	res := reassemble(t, sseEvents(t, rec.Body.String()))
	if res.content != content {
		t.Errorf("streamed content differs:\n%s\n%s", res.content, content)
	}
	if n := len(res.chunks); n < 2+len(content)/jsonPieceRunes {
		t.Errorf("%d chunks for %d bytes of JSON", n, len(content))
	}
	if res.finishReason != "stop" || res.usage.Get("completion_tokens").Int() != int64(estimateTokens(content)) {
		t.Errorf("finish %q usage %s", res.finishReason, res.usage.Raw)
	}
}

// TestResponseFormatJSONObject: json_object (and json_schema without a
// schema) answers {"echo": text}; the text format keeps the echo.
func TestResponseFormatJSONObject(t *testing.T) {
	for _, rf := range []string{`{"type":"json_object"}`, `{"type":"json_schema","json_schema":{"name":"x"}}`} {
		rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat(`say "hi"`, `"response_format":`+rf))
		if got := mustJSON(t, rec.Body.String()).Get("choices.0.message.content").Str; got != `{"echo":"say \"hi\""}` {
			t.Errorf("%s: content %s", rf, got)
		}
	}
	rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat("hi", `"response_format":{"type":"text"}`))
	if got := mustJSON(t, rec.Body.String()).Get("choices.0.message.content").Str; got != "Echo: hi" {
		t.Errorf("text format: content %q", got)
	}
}

// TestResponseFormatAfterToolResult: a JSON answer to a tool result takes
// its strings from the result.
func TestResponseFormatAfterToolResult(t *testing.T) {
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"weather? mock:call"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"sunny"}],"tools":[` + weatherTool + `],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}}}}`
	resp := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
	if got := resp.Get("choices.0.message.content").Str; got != `{"summary":"sunny"}` {
		t.Errorf("content = %s (%s)", got, resp.Raw)
	}
}

// TestResponseFormatMaxTokens: a JSON answer longer than the token limit
// is cut, unfinished, with finish_reason "length".
func TestResponseFormatMaxTokens(t *testing.T) {
	rf := `"response_format":{"type":"json_schema","json_schema":{"name":"m","schema":` + pydanticSchema + `}},"max_tokens":5`
	resp := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat("a long question", rf)).Body.String())
	content := resp.Get("choices.0.message.content").Str
	if resp.Get("choices.0.finish_reason").Str != "length" || len([]rune(content)) != 20 || gjson.Valid(content) {
		t.Errorf("finish %q content %q", resp.Get("choices.0.finish_reason").Str, content)
	}
}

func TestResponseFormatErrors(t *testing.T) {
	tests := []struct{ rf, param string }{
		{`"json"`, "response_format"},
		{`{}`, "response_format.type"},
		{`{"type":"xml"}`, "response_format.type"},
		{`{"type":"json_schema"}`, "response_format.json_schema"},
		{`{"type":"json_schema","json_schema":{"schema":{}}}`, "response_format.json_schema.name"},
		{`{"type":"json_schema","json_schema":{"name":"x","schema":"{}"}}`, "response_format.json_schema.schema"},
	}
	for _, tt := range tests {
		rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat("x", `"response_format":`+tt.rf))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d", tt.rf, rec.Code)
			continue
		}
		if got := mustJSON(t, rec.Body.String()).Get("error.param").Str; got != tt.param {
			t.Errorf("%s: param %q, want %q", tt.rf, got, tt.param)
		}
	}
}

const searchTool = `{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{"query":{"type":"string","minLength":3},"limit":{"type":"integer","minimum":5,"maximum":50},"since":{"type":"string","format":"date"},"filters":{"type":"array","items":{"$ref":"#/$defs/Filter"},"minItems":1}},"required":["query","limit","since","filters"],"additionalProperties":false,"$defs":{"Filter":{"type":"object","properties":{"field":{"enum":["title","body"]},"value":{"type":["string","null"]}},"required":["field","value"],"additionalProperties":false}}}}}`

// TestParallelToolCalls: "mock:call:a,b" calls a and b, in order, with
// arguments valid against each tool's parameters and distinct,
// deterministic ids; streamed, each call has its own index.
func TestParallelToolCalls(t *testing.T) {
	tools := `"tools":[` + weatherTool + `,` + searchTool + `]`
	body := userChat("look it up mock:call:search,get_weather,search please", tools)
	rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", body)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	resp := mustJSON(t, rec.Body.String())
	if fr := resp.Get("choices.0.finish_reason").Str; fr != "tool_calls" {
		t.Errorf("finish_reason = %q", fr)
	}
	calls := resp.Get("choices.0.message.tool_calls").Array()
	var names, ids []string
	tokens := 0
	for _, c := range calls {
		names = append(names, c.Get("function.name").Str)
		ids = append(ids, c.Get("id").Str)
		tokens += estimateTokens(c.Get("function.name").Str + c.Get("function.arguments").Str)
	}
	if !slices.Equal(names, []string{"search", "get_weather", "search"}) {
		t.Fatalf("calls %v: %s", names, resp.Raw)
	}
	if ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] || !strings.HasPrefix(ids[2], "call_") {
		t.Errorf("ids %v are not distinct", ids)
	}
	validateJSON(t, compileSchema(t, gjson.Get(searchTool, "function.parameters").Raw), calls[0].Get("function.arguments").Str)
	validateJSON(t, compileSchema(t, gjson.Get(weatherTool, "function.parameters").Raw), calls[1].Get("function.arguments").Str)
	if got := calls[1].Get("function.arguments").Str; got != `{"city":"look it up please","unit":"celsius"}` {
		t.Errorf("get_weather arguments %s", got)
	}
	if got := resp.Get("usage.completion_tokens").Int(); got != int64(tokens) {
		t.Errorf("completion_tokens = %d, want %d", got, tokens)
	}
	again := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
	if again.Get("choices.0.message.tool_calls").Raw != resp.Get("choices.0.message.tool_calls").Raw {
		t.Errorf("not deterministic")
	}

	streamed := strings.Replace(body, `{"model"`, `{"stream":true,"model"`, 1)
	events := sseEvents(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", streamed).Body.String())
	got := make([]struct{ id, name, args string }, 3)
	var finish string
	for _, e := range events[:len(events)-1] {
		c := mustJSON(t, e)
		if fr := c.Get("choices.0.finish_reason"); fr.Type == gjson.String {
			finish = fr.Str
		}
		for _, d := range c.Get("choices.0.delta.tool_calls").Array() {
			i := int(d.Get("index").Int())
			if i >= len(got) {
				t.Fatalf("index %d: %s", i, e)
			}
			if id := d.Get("id").Str; id != "" {
				got[i].id = id
			}
			got[i].name += d.Get("function.name").Str
			got[i].args += d.Get("function.arguments").Str
		}
	}
	// Ids derive from the whole request body, so they differ from the
	// unstreamed request's.
	for i, c := range calls {
		if got[i].name != c.Get("function.name").Str || got[i].args != c.Get("function.arguments").Str {
			t.Errorf("streamed call %d = %+v, want %s", i, got[i], c.Raw)
		}
	}
	if got[0].id == got[1].id || got[1].id == got[2].id || got[0].id == got[2].id || got[0].id == "" {
		t.Errorf("streamed ids %+v are not distinct", got)
	}
	if finish != "tool_calls" {
		t.Errorf("streamed finish_reason %q", finish)
	}
}

// TestParallelToolCallChoices: how tool_choice and parallel_tool_calls
// combine with a trigger naming several tools.
func TestParallelToolCallChoices(t *testing.T) {
	tools := `"tools":[` + weatherTool + `,` + searchTool + `]`
	names := func(t *testing.T, user, extra string) []string {
		t.Helper()
		rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat(user, tools+extra))
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var out []string
		for _, c := range mustJSON(t, rec.Body.String()).Get("choices.0.message.tool_calls").Array() {
			out = append(out, c.Get("function.name").Str)
		}
		return out
	}
	tests := []struct {
		name, user, extra string
		want              []string
	}{
		{"auto", "mock:call:search,get_weather", `,"tool_choice":"auto"`, []string{"search", "get_weather"}},
		{"required with a list", "mock:call:search,get_weather", `,"tool_choice":"required"`, []string{"search", "get_weather"}},
		{"required without trigger", "x", `,"tool_choice":"required"`, []string{"get_weather"}},
		{"named choice wins", "mock:call:search,get_weather", `,"tool_choice":{"type":"function","function":{"name":"search"}}`, []string{"search"}},
		{"not parallel", "mock:call:search,get_weather", `,"parallel_tool_calls":false`, []string{"search"}},
		{"parallel", "mock:call:search,get_weather", `,"parallel_tool_calls":true`, []string{"search", "get_weather"}},
		{"none", "mock:call:search,get_weather", `,"tool_choice":"none"`, nil},
		{"comma then space ends the list", "mock:call:search, get_weather", ``, []string{"search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(t, tt.user, tt.extra); !slices.Equal(got, tt.want) {
				t.Errorf("calls %v, want %v", got, tt.want)
			}
		})
	}

	for _, extra := range []string{"", `,"parallel_tool_calls":"yes"`} {
		user := "mock:call:get_weather,nope"
		if extra != "" {
			user = "mock:call:get_weather"
		}
		rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", userChat(user, tools+extra))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%q %q: status %d %s", user, extra, rec.Code, rec.Body)
		}
	}
}

func TestTrigger(t *testing.T) {
	tests := []struct {
		text  string
		names []string
		rest  string
		ok    bool
	}{
		{"hello", nil, "hello", false},
		{"a mock:call b", nil, "a b", true},
		{"mock:call:", nil, "", true},
		{"mock:call:x", []string{"x"}, "", true},
		{"do mock:call:a,b.c,a now", []string{"a", "b.c", "a"}, "do now", true},
		{"mock:call:a,", []string{"a"}, ",", true},
		{"mock:call:a, b", []string{"a"}, ", b", true},
	}
	for _, tt := range tests {
		names, rest, ok := trigger(tt.text)
		if !slices.Equal(names, tt.names) || rest != tt.rest || ok != tt.ok {
			t.Errorf("trigger(%q) = %q, %q, %v; want %q, %q, %v", tt.text, names, rest, ok, tt.names, tt.rest, tt.ok)
		}
	}
}
