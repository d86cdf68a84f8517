package mock

import (
	"net/http"
	"strings"
	"testing"
)

const weatherTool = `{"type":"function","function":{"name":"get_weather","description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer"},"detailed":{"type":"boolean"}},"required":["city","unit"]}}}`

const allTypesTool = `{"type":"function","function":{"name":"all_types","parameters":{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"a":{"type":"array","items":{"type":"string"}},"o":{"type":"object"},"e":{"enum":[{"k": 1}, 2]},"nullable":{"type":["null","integer"]},"any":{}}}}}`

func TestToolCalls(t *testing.T) {
	tests := []struct {
		name     string
		tools    string
		choice   string // raw JSON, or "" for none
		user     string
		wantName string
		wantArgs string
	}{
		{
			name:     "required properties and enum",
			tools:    `[` + weatherTool + `]`,
			user:     "Paris mock:call",
			wantName: "get_weather",
			wantArgs: `{"city":"Paris","unit":"celsius"}`,
		},
		{
			name:     "all properties by type when none required",
			tools:    `[` + allTypesTool + `]`,
			user:     `mock:call say "hi"`,
			wantName: "all_types",
			wantArgs: `{"s":"say \"hi\"","n":1,"i":1,"b":true,"a":["say \"hi\""],"o":{},"e":{"k":1},"nullable":1,"any":"say \"hi\""}`,
		},
		{
			name:     "first tool by default",
			tools:    `[` + allTypesTool + `,` + weatherTool + `]`,
			choice:   `"auto"`,
			user:     "x mock:call",
			wantName: "all_types",
		},
		{
			name:     "required forces first tool",
			tools:    `[` + weatherTool + `,` + allTypesTool + `]`,
			choice:   `"required"`,
			user:     "x",
			wantName: "get_weather",
			wantArgs: `{"city":"x","unit":"celsius"}`,
		},
		{
			name:     "tool_choice by name",
			tools:    `[` + allTypesTool + `,` + weatherTool + `]`,
			choice:   `{"type":"function","function":{"name":"get_weather"}}`,
			user:     "Rome",
			wantName: "get_weather",
			wantArgs: `{"city":"Rome","unit":"celsius"}`,
		},
		{
			name:     "trigger names a tool",
			tools:    `[` + allTypesTool + `,` + weatherTool + `]`,
			user:     "mock:call:get_weather Rome",
			wantName: "get_weather",
			wantArgs: `{"city":"Rome","unit":"celsius"}`,
		},
		{
			name:     "no parameters",
			tools:    `[{"type":"function","function":{"name":"now"}}]`,
			user:     "time? mock:call",
			wantName: "now",
			wantArgs: `{}`,
		},
		{
			name:     "non-function tools are skipped",
			tools:    `[{"type":"custom","custom":{"name":"c"}},{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}]`,
			user:     "multi mock:call part",
			wantName: "f",
			wantArgs: `{"q":"multi part"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"mock-chat","messages":[{"role":"user","content":` + jsonString(tt.user) + `}],"tools":` + tt.tools
			if tt.choice != "" {
				body += `,"tool_choice":` + tt.choice
			}
			body += `}`
			rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
			}
			resp := mustJSON(t, rec.Body.String())
			msg := resp.Get("choices.0.message")
			if c := msg.Get("content"); c.Raw != "null" {
				t.Errorf("content = %s, want null", c.Raw)
			}
			if got := resp.Get("choices.0.finish_reason").String(); got != "tool_calls" {
				t.Errorf("finish_reason = %q", got)
			}
			calls := msg.Get("tool_calls").Array()
			if len(calls) != 1 {
				t.Fatalf("%d tool calls: %s", len(calls), msg.Raw)
			}
			call := calls[0]
			if id := call.Get("id").String(); !strings.HasPrefix(id, "call_") || len(id) < 10 {
				t.Errorf("id = %q", id)
			}
			if got := call.Get("type").String(); got != "function" {
				t.Errorf("type = %q", got)
			}
			if got := call.Get("function.name").String(); got != tt.wantName {
				t.Errorf("name = %q, want %q", got, tt.wantName)
			}
			args := call.Get("function.arguments")
			if args.Type.String() != "String" {
				t.Fatalf("arguments is not a string: %s", args.Raw)
			}
			if !mustJSON(t, args.Str).IsObject() {
				t.Errorf("arguments is not a JSON object: %s", args.Str)
			}
			if tt.wantArgs != "" && args.Str != tt.wantArgs {
				t.Errorf("arguments = %s, want %s", args.Str, tt.wantArgs)
			}
			wantTokens := estimateTokens(call.Get("function.name").Str + args.Str)
			if got := resp.Get("usage.completion_tokens").Int(); got != int64(wantTokens) {
				t.Errorf("completion_tokens = %d, want %d", got, wantTokens)
			}
		})
	}
}

func TestToolCallIDDeterministic(t *testing.T) {
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"x mock:call"}],"tools":[` + weatherTool + `]}`
	id := func(b string) string {
		return mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", b).Body.String()).
			Get("choices.0.message.tool_calls.0.id").String()
	}
	a, b := id(body), id(body)
	if a == "" || a != b {
		t.Errorf("ids %q and %q differ", a, b)
	}
	if c := id(strings.Replace(body, `"x mock:call"`, `"y mock:call"`, 1)); c == a {
		t.Errorf("different requests share tool call id %q", a)
	}
}

func TestToolErrors(t *testing.T) {
	tests := []struct{ name, extra, param string }{
		{"unknown tool_choice name", `"tools":[` + weatherTool + `],"tool_choice":{"type":"function","function":{"name":"nope"}}`, "tool_choice"},
		{"bad tool_choice string", `"tools":[` + weatherTool + `],"tool_choice":"sometimes"`, "tool_choice"},
		{"tools not an array", `"tools":{"type":"function"}`, "tools"},
		{"function without name", `"tools":[{"type":"function","function":{}}]`, "tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"mock-chat","messages":[{"role":"user","content":"x"}],` + tt.extra + `}`
			rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", body)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
			}
			if got := mustJSON(t, rec.Body.String()).Get("error.param").String(); got != tt.param {
				t.Errorf("param = %q, want %q", got, tt.param)
			}
		})
	}
}

// TestToolsWithoutTriggerAnswerInText: tools offered with the choice left
// to the model get a text answer unless the last user message carries the
// trigger; a trigger naming an unknown tool is an error.
func TestToolsWithoutTriggerAnswerInText(t *testing.T) {
	for _, choice := range []string{"", `,"tool_choice":"auto"`} {
		body := `{"model":"mock-chat","messages":[{"role":"user","content":"mock:call"},{"role":"assistant","content":"ok"},{"role":"user","content":"write it"}],"tools":[` + weatherTool + `]` + choice + `}`
		resp := mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/chat/completions", body).Body.String())
		if got := resp.Get("choices.0.message.content").Str; got != "Echo: write it" || resp.Get("choices.0.message.tool_calls").Exists() {
			t.Errorf("choice %q: %s", choice, resp.Raw)
		}
	}
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"mock:call:nope"}],"tools":[` + weatherTool + `]}`
	if rec := do(t, Options{}, http.MethodPost, "/v1/chat/completions", body); rec.Code != http.StatusBadRequest {
		t.Errorf("unknown tool in trigger: status %d %s", rec.Code, rec.Body)
	}
}
