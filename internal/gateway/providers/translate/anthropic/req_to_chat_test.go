package anthropic

import (
	"os"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

func TestMessagesToChatRequest(t *testing.T) {
	cases := []struct{ name, in, want string }{{
		name: "basics",
		in: `{"model":"gpt-x","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":"Hi"},
			{"role":"assistant","content":"Hello"},{"role":"user","content":"Count"}],
			"stop_sequences":["3"],"stream":true,"temperature":0.5,"top_p":0.9,"metadata":{"user_id":"u-1"},"service_tier":"standard_only","top_k":null,
			"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]}}`,
		want: `{"model":"gpt-x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},
			{"role":"assistant","content":"Hello"},{"role":"user","content":"Count"}],"max_completion_tokens":100,
			"temperature":0.5,"top_p":0.9,"stop":["3"],"stream":true,"stream_options":{"include_usage":true},"user":"u-1","service_tier":"default"}`,
	}, {
		name: "system blocks, cache_control, text blocks",
		in: `{"model":"m","max_tokens":5,"system":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"}],
			"messages":[{"role":"user","content":[{"type":"text","text":"one","cache_control":{"type":"ephemeral","ttl":"1h"}}]},
			{"role":"assistant","content":[{"type":"text","text":"x "},{"type":"text","text":"y","citations":null}]},
			{"role":"user","content":[{"type":"text","text":"p1"},{"type":"text","text":"p2"}]}],"stream":false,"service_tier":"auto"}`,
		want: `{"model":"m","messages":[{"role":"system","content":"A"},{"role":"system","content":"B"},{"role":"user","content":"one"},
			{"role":"assistant","content":"x y"},{"role":"user","content":[{"type":"text","text":"p1"},{"type":"text","text":"p2"}]}],
			"max_completion_tokens":5,"stream":false,"service_tier":"auto"}`,
	}, {
		name: "system messages between the turns stay in place",
		in: `{"model":"m","max_tokens":5,"system":"S","messages":[{"role":"user","content":"one"},
			{"role":"system","content":"Reminder."},{"role":"assistant","content":"two"},
			{"role":"system","content":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"}]},
			{"role":"user","content":"three"}]}`,
		want: `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"one"},
			{"role":"system","content":"Reminder."},{"role":"assistant","content":"two"},
			{"role":"system","content":"A\n\nB"},{"role":"user","content":"three"}],"max_completion_tokens":5}`,
	}, {
		name: "images and documents",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO\/Rw=="}},
			{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"r.pdf"},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},
			{"type":"document","source":{"type":"text","media_type":"text/plain","data":"body"},"title":"T","context":"C"},
			{"type":"document","source":{"type":"base64","media_type":"text/plain","data":"aGk="}},
			{"type":"text","text":"Describe."}]}]}`,
		want: `{"model":"m","messages":[{"role":"user","content":[
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO/Rw=="}},
			{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},
			{"type":"file","file":{"filename":"r.pdf","file_data":"data:application/pdf;base64,JVBERi0="}},
			{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0="}},
			{"type":"text","text":"C"},{"type":"text","text":"T\n\nbody"},{"type":"text","text":"hi"},
			{"type":"text","text":"Describe."}]}],"max_completion_tokens":5}`,
	}, {
		name: "tool use, tool results first, error results, images from tools, thinking dropped",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"Weather?"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Checking."},
				{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location": "Paris"}},
				{"type":"tool_use","id":"toolu_2","name":"screenshot","input":{}}]},
			{"role":"user","content":[{"type":"text","text":"Here:"},
				{"type":"tool_result","tool_use_id":"toolu_1","content":"18C","cache_control":{"type":"ephemeral"}},
				{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"partial"},{"type":"text","text":"render"},
					{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3"},{"type":"tool_result","tool_use_id":"toolu_4","is_error":true,"content":"boom"}]},
			{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"}]}]}`,
		want: `{"model":"m","messages":[{"role":"user","content":"Weather?"},
			{"role":"assistant","content":"Checking.","tool_calls":[
				{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
				{"id":"toolu_2","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"toolu_1","content":"18C"},
			{"role":"tool","tool_call_id":"toolu_2","content":"Error: partial\nrender"},
			{"role":"user","content":[{"type":"text","text":"(images returned by tool call toolu_2)"},
				{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"Here:"}]},
			{"role":"tool","tool_call_id":"toolu_3","content":""},
			{"role":"tool","tool_call_id":"toolu_4","content":"Error: boom"}],"max_completion_tokens":5}`,
	}, {
		name: "tools and tool_choice tool with parallel off",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],
			"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}},"cache_control":{"type":"ephemeral"}},
				{"type":"custom","name":"noop","input_schema":{"type":"object"},"strict":true}],
			"tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,
			"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}},
				{"type":"function","function":{"name":"noop","parameters":{"type":"object"},"strict":true}}],
			"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false}`,
	}, {
		name: "tool_choice any, none, auto",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","input_schema":{"type":"object"}}],
			"tool_choice":{"type":"any"}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,
			"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"required"}`,
	}, {
		name: "tool_choice none keeps parallel",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","input_schema":{"type":"object"}}],
			"tool_choice":{"type":"none","disable_parallel_tool_use":true}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,
			"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"none"}`,
	}, {
		// The Vercel AI SDK's Anthropic provider sends these with its
		// tools; they only shape Anthropic's delivery or prompt and are
		// dropped.
		name: "eager_input_streaming and input_examples dropped",
		in: `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"x"}],
			"tools":[{"name":"f","description":"F","input_schema":{"type":"object"},"eager_input_streaming":true,"input_examples":[{"a":1}]}]}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,"stream":true,
			"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"f","description":"F","parameters":{"type":"object"}}}]}`,
	}, {
		name: "tool_choice without tools",
		in:   `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"auto"}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5}`,
	}, {
		name: "thinking budgets",
		in:   `{"model":"m","max_tokens":20000,"messages":[{"role":"user","content":"x"}],"thinking":{"type":"enabled","budget_tokens":10000},"tool_choice":{"type":"auto"},"tools":[{"name":"f","input_schema":{"type":"object"}}]}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":20000,
			"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"auto","reasoning_effort":"medium"}`,
	}, {
		name: "thinking disabled, adaptive",
		in:   `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"thinking":{"type":"adaptive"}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5}`,
	}, {
		name: "output_config effort and format",
		in: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"thinking":{"type":"enabled","budget_tokens":2000},
			"output_config":{"effort":"high","format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,"reasoning_effort":"high",
			"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","properties":{"a":{"type":"string"}}},"strict":true}}}`,
	}, {
		name: "output_format",
		in:   `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"output_format":{"type":"json_schema","schema":{"type":"object"}}}`,
		want: `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,
			"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object"},"strict":true}}}`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := MessagesToChatRequest([]byte(c.in), translate.ChatTarget{})
			if err != nil {
				t.Fatal(err)
			}
			anthJSONEq(t, out, c.want)
		})
	}
}

func TestThinkingEffortMapping(t *testing.T) {
	for budget, want := range map[int64]string{1024: "low", 2048: "low", 4095: "low", 4096: "medium", 8192: "medium", 16383: "medium", 16384: "high", 64000: "high"} {
		if got := budgetToChatEffort(budget); got != want {
			t.Errorf("budgetToChatEffort(%d) = %q, want %q", budget, got, want)
		}
	}
	// low, medium and high survive chat → Anthropic → chat.
	for _, effort := range []string{"low", "medium", "high"} {
		if got := budgetToChatEffort(chatEffortBudgets[effort]); got != effort {
			t.Errorf("%s → %d → %s", effort, chatEffortBudgets[effort], got)
		}
	}
}

func TestMessagesToChatRequestRejects(t *testing.T) {
	doc, err := os.ReadFile("UNSUPPORTED.md")
	if err != nil {
		t.Fatal(err)
	}
	const msg = `"messages":[{"role":"user","content":"a"}]`
	cases := []struct{ name, body, param, msg, listed string }{
		{"top_k", msg + `,"top_k":5`, "top_k", "top-k", "`top_k`"},
		{"container", msg + `,"container":"c"`, "container", "platform", "`container`"},
		{"mcp_servers", msg + `,"mcp_servers":[{}]`, "mcp_servers", "platform", "`mcp_servers`"},
		{"unknown", msg + `,"frobnicate":1`, "frobnicate", "unknown", "any other field"},
		{"server tool", msg + `,"tools":[{"type":"web_search_20250305","name":"web_search"}]`, "tools[0].type", "server", "`web_search_*`"},
		{"bash tool", msg + `,"tools":[{"type":"bash_20250124","name":"bash"}]`, "tools[0].type", "server", "`bash_*`"},
		{"tool member", msg + `,"tools":[{"name":"f","input_schema":{},"frobnicate":[]}]`, "tools[0].frobnicate", "unknown", "block member"},
		{"metadata", msg + `,"metadata":{"user_id":"u","tenant":"t"}`, "metadata.tenant", "metadata", "`metadata` keys other than `user_id`"},
		{"thinking type", msg + `,"thinking":{"type":"max"}`, "thinking.type", "expected", "`thinking.type` other than"},
		{"effort", msg + `,"output_config":{"effort":"max"}`, "output_config.effort", "expected", "`output_config.effort` other than"},
		{"output format", msg + `,"output_format":{"type":"regex"}`, "output_format", "json_schema", "`output_format`"},
		{"image file", `"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]`, "messages[0].content[0].source.type", "file ids", "image `source.type` `file`"},
		{"document url", `"messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]}]`, "messages[0].content[0].source", "inline PDF", "document `source.type` `url`"},
		{"citations", `"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","data":"x"},"citations":{"enabled":true}}]}]`, "messages[0].content[0].citations", "citations", "`citations.enabled`"},
		{"search_result", `"messages":[{"role":"user","content":[{"type":"search_result","source":"s","title":"t","content":[]}]}]`, "messages[0].content[0].type", "search_result", "`search_result`"},
		{"server_tool_use", `"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]`, "messages[0].content[0].type", "server_tool_use", "`server_tool_use`"},
		{"tool_result document", `"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document","source":{"type":"text","data":"x"}}]}]}]`, "messages[0].content[0].content[0].type", "text and images", "`tool_result.content` blocks"},
		{"block member", `"messages":[{"role":"user","content":[{"type":"text","text":"a","lang":"en"}]}]`, "messages[0].content[0].lang", "unknown", "block member"},
		{"message member", `"messages":[{"role":"user","content":"a","name":"x"}]`, "messages[0].name", "unknown", "message member"},
		{"role", `"messages":[{"role":"tool","content":"a"}]`, "messages[0].role", "expected", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MessagesToChatRequest([]byte(`{"model":"m","max_tokens":5,`+c.body+`}`), translate.ChatTarget{})
			anthWantError(t, err, c.param, c.msg)
			if !strings.Contains(string(doc), c.listed) {
				t.Fatalf("UNSUPPORTED.md does not list %q", c.listed)
			}
		})
	}
	for _, body := range []string{`nope`, `{"model":"m"}`, `{"messages":[]}`, `{"model":"m","messages":[],"max_tokens":-1}`,
		`{"model":"m","messages":[],"stop_sequences":"x"}`, `{"model":"m","messages":[],"temperature":"hot"}`} {
		var te *translate.Error
		if _, err := MessagesToChatRequest([]byte(body), translate.ChatTarget{}); err == nil || !asError(err, &te) {
			t.Errorf("%s: want *translate.Error, got %v", body, err)
		}
	}
}
