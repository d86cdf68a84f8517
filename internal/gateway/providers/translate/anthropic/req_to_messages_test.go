package anthropic

import (
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

func TestChatToMessagesRequest(t *testing.T) {
	const png = "iVBORw0KGgo="
	cases := []struct {
		name, in, want string
		def            int
	}{{
		name: "basics: system, developer, sampling, stop string, stream, user",
		in: `{"model":"claude-x","messages":[{"role":"system","content":"Be brief."},{"role":"developer","content":[{"type":"text","text":"Use French."}]},
			{"role":"user","content":"Hi"}],"temperature":0.2,"top_p":0.9,"stop":"END","stream":true,"user":"u-1",
			"n":1,"logprobs":false,"frequency_penalty":0,"presence_penalty":0,"store":false,"modalities":["text"],"seed":null,
			"stream_options":{"include_usage":true},"prompt_cache_key":"k","logit_bias":{},"top_logprobs":0,"tools":null}`,
		def: 1000,
		want: `{"model":"claude-x","max_tokens":1000,"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Use French."}],
			"messages":[{"role":"user","content":"Hi"}],"temperature":0.2,"top_p":0.9,"stop_sequences":["END"],"stream":true,
			"metadata":{"user_id":"u-1"}}`,
	}, {
		name: "one system string, max_completion_tokens over max_tokens, stop array, safety_identifier",
		in: `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"system","content":"late system"}],
			"max_tokens":10,"max_completion_tokens":20,"stop":["x",""," y"],"safety_identifier":"sid","service_tier":"default"}`,
		want: `{"model":"m","max_tokens":20,"system":"late system","messages":[{"role":"user","content":"a"}],
			"stop_sequences":["x"," y"],"metadata":{"user_id":"sid"},"service_tier":"standard_only"}`,
	}, {
		name: "max_tokens alone, fallback default",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"max_tokens":77}`,
		want: `{"model":"m","max_tokens":77,"messages":[{"role":"user","content":"a"}]}`,
	}, {
		name: "default when caller gives none",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"meta-user","tag":"x"}}`,
		def:  0,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}],"metadata":{"user_id":"meta-user"}}`,
	}, {
		name: "images: data URL, https URL, bare string, jpg alias; cache_control kept",
		in: `{"model":"m","messages":[{"role":"user","content":[
			{"type":"text","text":"What colors?","cache_control":{"type":"ephemeral"}},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `","detail":"high"}},
			{"type":"image_url","image_url":{"url":"https://example.com/a.jpg"}},
			{"type":"image_url","image_url":"data:image/jpg;base64,/9j/"}]}]}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":[
			{"type":"text","text":"What colors?","cache_control":{"type":"ephemeral"}},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}},
			{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}},
			{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}}]}]}`,
	}, {
		name: "files: PDF and plain text",
		in: `{"model":"m","messages":[{"role":"user","content":[
			{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}},
			{"type":"file","file":{"file_data":"data:text/plain;base64,aGVsbG8="}}]}]}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":[
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"a.pdf"},
			{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}]}]}`,
	}, {
		name: "tools, tool calls, merged tool results, parallel off",
		in: `{"model":"m","messages":[
			{"role":"user","content":"Weather in Paris and time?"},
			{"role":"assistant","content":"Let me check.","tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
				{"id":"call:2","type":"function","function":{"name":"get_time","arguments":""}}],"refusal":null,"annotations":[],"audio":null,"function_call":null},
			{"role":"tool","tool_call_id":"call_1","content":"18C"},
			{"role":"tool","tool_call_id":"call:2","content":[{"type":"text","text":"12:00"}]},
			{"role":"user","content":"Thanks"},
			{"role":"assistant","content":""}],
			"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}},"strict":true}},
				{"type":"function","function":{"name":"get_time","parameters":{}},"cache_control":{"type":"ephemeral"}}],
			"tool_choice":"auto","parallel_tool_calls":false}`,
		want: `{"model":"m","max_tokens":4096,"messages":[
			{"role":"user","content":"Weather in Paris and time?"},
			{"role":"assistant","content":[{"type":"text","text":"Let me check."},
				{"type":"tool_use","id":"call_1","name":"get_weather","input":{"location":"Paris"}},
				{"type":"tool_use","id":"call_2","name":"get_time","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"18C"},
				{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"12:00"}]},
				{"type":"text","text":"Thanks"}]}],
			"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}},
				{"name":"get_time","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],
			"tool_choice":{"type":"auto","disable_parallel_tool_use":true}}`,
	}, {
		name: "tool_choice required, function, none; no tools drops choice",
		in: `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f"}}],
			"tool_choice":{"type":"function","function":{"name":"f"}}}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}],
			"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"tool","name":"f"}}`,
	}, {
		name: "tool_choice required",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","parallel_tool_calls":true}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}],
			"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"any"}}`,
	}, {
		name: "tool_choice none",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none","parallel_tool_calls":false}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}],
			"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"none"}}`,
	}, {
		name: "no tools",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"tool_choice":"none","parallel_tool_calls":false,"tools":[]}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}]}`,
	}, {
		name: "reasoning effort raises the default max_tokens",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"reasoning_effort":"medium","temperature":1,"top_p":0.95}`,
		def:  4096,
		want: `{"model":"m","max_tokens":12288,"messages":[{"role":"user","content":"a"}],
			"thinking":{"type":"enabled","budget_tokens":8192},"temperature":1,"top_p":0.95}`,
	}, {
		name: "reasoning effort within the client's cap",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"reasoning_effort":"high","max_completion_tokens":3000}`,
		want: `{"model":"m","max_tokens":3000,"messages":[{"role":"user","content":"a"}],"thinking":{"type":"enabled","budget_tokens":1500}}`,
	}, {
		name: "reasoning effort minimal, default large enough",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"reasoning_effort":"minimal"}`,
		def:  32000,
		want: `{"model":"m","max_tokens":32000,"messages":[{"role":"user","content":"a"}],"thinking":{"type":"enabled","budget_tokens":1024}}`,
	}, {
		name: "reasoning effort none",
		in:   `{"model":"m","messages":[{"role":"user","content":"a"}],"reasoning_effort":"none"}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"}],"thinking":{"type":"disabled"}}`,
	}, {
		name: "signed thinking blocks go back, unsigned reasoning does not",
		in: `{"model":"m","messages":[{"role":"user","content":"a"},
			{"role":"assistant","content":null,"reasoning_content":"r","thinking_blocks":[{"type":"thinking","thinking":"r","signature":"S"},{"type":"redacted_thinking","data":"D"},{"type":"thinking","thinking":"x","signature":""}],
			 "tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"t1","content":"ok"},
			{"role":"assistant","reasoning_content":"only this","content":"done"}],"reasoning_effort":"low"}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"a"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"r","signature":"S"},{"type":"redacted_thinking","data":"D"},
				{"type":"tool_use","id":"t1","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},
			{"role":"assistant","content":[{"type":"text","text":"done"}]}],"thinking":{"type":"enabled","budget_tokens":2048}}`,
	}, {
		name: "json_object",
		in:   `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"colors as JSON"}],"response_format":{"type":"json_object"}}`,
		want: `{"model":"m","max_tokens":4096,"system":[{"type":"text","text":"S"},{"type":"text","text":"` + jsonObjectInstruction + `"}],
			"messages":[{"role":"user","content":"colors as JSON"}]}`,
	}, {
		name: "json_schema forces the JSON tool",
		in: `{"model":"m","messages":[{"role":"user","content":"colors"}],"response_format":{"type":"json_schema",
			"json_schema":{"name":"colors","strict":true,"schema":{"type":"object","properties":{"colors":{"type":"array"}}}}}}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"colors"}],
			"tools":[{"name":"modelgate_json_response","description":"Give your final answer by calling this tool; its input is the answer.",
				"input_schema":{"type":"object","properties":{"colors":{"type":"array"}}}}],
			"tool_choice":{"type":"tool","name":"modelgate_json_response"}}`,
	}, {
		name: "json_schema with client tools: any",
		in: `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"parallel_tool_calls":false,
			"response_format":{"type":"json_schema","json_schema":{"name":"n","description":"The answer.","schema":{"type":"object"}}}}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"x"}],
			"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}},
				{"name":"modelgate_json_response","description":"The answer.","input_schema":{"type":"object"}}],
			"tool_choice":{"type":"any","disable_parallel_tool_use":true}}`,
	}, {
		name: "json_schema with reasoning: auto and an instruction",
		in: `{"model":"m","messages":[{"role":"user","content":"x"}],"reasoning_effort":"low","max_completion_tokens":5000,
			"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object"}}}}`,
		want: `{"model":"m","max_tokens":5000,"system":[{"type":"text","text":"Give your final answer by calling the modelgate_json_response tool; do not answer in plain text."}],
			"messages":[{"role":"user","content":"x"}],
			"tools":[{"name":"modelgate_json_response","description":"Give your final answer by calling this tool; its input is the answer.","input_schema":{"type":"object"}}],
			"tool_choice":{"type":"auto"},"thinking":{"type":"enabled","budget_tokens":2048}}`,
	}, {
		name: "text response_format, escaped text and unicode pass through",
		in:   `{"model":"m","messages":[{"role":"user","content":"line\nbreak \"q\" \u00e9 ✓ \ud83d\ude00"}],"response_format":{"type":"text"}}`,
		want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":"line\nbreak \"q\" é ✓ 😀"}]}`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := c.def
			if def == 0 && !strings.HasPrefix(c.name, "default") {
				def = 4096
			}
			out, err := ChatToMessagesRequest([]byte(c.in), def)
			if err != nil {
				t.Fatal(err)
			}
			anthJSONEq(t, out, c.want)
		})
	}
}

// anthChatRejects are chat requests Anthropic cannot serve; listed names
// the UNSUPPORTED.md row.
var anthChatRejects = []struct {
	name, body, param, msg, listed string
}{
	{"n", `"n":2`, "n", "one choice", "`n`"},
	{"logprobs", `"logprobs":true`, "logprobs", "log probabilities", "`logprobs`"},
	{"top_logprobs", `"top_logprobs":3`, "top_logprobs", "log probabilities", "`top_logprobs`"},
	{"frequency_penalty", `"frequency_penalty":0.5`, "frequency_penalty", "penalties", "`frequency_penalty`"},
	{"presence_penalty", `"presence_penalty":-1`, "presence_penalty", "penalties", "`presence_penalty`"},
	{"logit_bias", `"logit_bias":{"50256":-100}`, "logit_bias", "biasing", "`logit_bias`"},
	{"seed", `"seed":7`, "seed", "seeded", "`seed`"},
	{"store", `"store":true`, "store", "stored", "`store`"},
	{"modalities", `"modalities":["text","audio"]`, "modalities", "text only", "`modalities`"},
	{"audio", `"audio":{"voice":"alloy","format":"mp3"}`, "audio", "text only", "`audio`"},
	{"prediction", `"prediction":{"type":"content","content":"x"}`, "prediction", "predicted", "`prediction`"},
	{"verbosity", `"verbosity":"low"`, "verbosity", "verbosity", "`verbosity`"},
	{"web_search_options", `"web_search_options":{}`, "web_search_options", "web search", "`web_search_options`"},
	{"functions", `"functions":[{"name":"f"}]`, "functions", "deprecated", "`functions`"},
	{"function_call", `"function_call":"auto"`, "function_call", "deprecated", "`function_call`"},
	{"service_tier", `"service_tier":"flex"`, "service_tier", "auto", "`service_tier`"},
	{"temperature", `"temperature":1.5`, "temperature", "between 0 and 1", "`temperature` (> 1)"},
	{"unknown", `"frobnicate":1`, "frobnicate", "unknown", "any other field"},
	{"reasoning_effort value", `"reasoning_effort":"max"`, "reasoning_effort", "one of", "`reasoning_effort`"},
	{"reasoning temperature", `"reasoning_effort":"low","temperature":0.5`, "temperature", "temperature 1", "`reasoning_effort` with `temperature`"},
	{"reasoning top_p", `"reasoning_effort":"low","top_p":0.5`, "top_p", "0.95", "`top_p` < 0.95"},
	{"reasoning forced tool", `"reasoning_effort":"low","tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required"`, "tool_choice", "force", "`tool_choice` `required`"},
	{"custom tool", `"tools":[{"type":"custom","custom":{"name":"x"}}]`, "tools[0].type", "function", "`tools[].type` other than `function`"},
	{"tool unknown member", `"tools":[{"type":"function","function":{"name":"f","examples":[]}}]`, "tools[0].function.examples", "unknown", "any other field"},
	{"reserved tool", `"tools":[{"type":"function","function":{"name":"modelgate_json_response"}}]`, "tools[0].function.name", "reserved", "`modelgate_json_response`"},
	{"allowed_tools", `"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{}}`, "tool_choice", "no Anthropic equivalent", "`allowed_tools`"},
	{"schema root", `"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"array"}}}`, "response_format.json_schema.schema", "root", "root is not"},
}

// anthChatMessageRejects are message-level rejections: body replaces the
// messages array.
var anthChatMessageRejects = []struct {
	name, messages, param, msg, listed string
}{
	{"name", `[{"role":"user","name":"bob","content":"a"}]`, "messages[0].name", "participant", "`messages[].name`"},
	{"function role", `[{"role":"function","name":"f","content":"a"}]`, "messages[0].role", "deprecated", "role `function`"},
	{"assistant function_call", `[{"role":"assistant","function_call":{"name":"f","arguments":"{}"}}]`, "messages[0].function_call", "deprecated", "assistant `function_call`"},
	{"assistant audio", `[{"role":"assistant","audio":{"id":"a"}}]`, "messages[0].audio", "audio", "assistant `audio`"},
	{"input_audio", `[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"x","format":"wav"}}]}]`, "messages[0].content[0].input_audio", "audio", "`input_audio`"},
	{"file_id", `[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]`, "messages[0].content[0].file.file_id", "file ids", "`file_id`"},
	{"file type", `[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/zip;base64,UEs="}}]}]`, "messages[0].content[0].file.file_data", "PDF", "not PDF or plain text"},
	{"image type", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/tiff;base64,AA=="}}]}]`, "messages[0].content[0].image_url.url", "JPEG", "JPEG, PNG, GIF, WebP"},
	{"image scheme", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"ftp://x/y.png"}}]}]`, "messages[0].content[0].image_url.url", "data: URL", "http(s) / base64 data URL"},
	{"part type", `[{"role":"user","content":[{"type":"video","video":{}}]}]`, "messages[0].content[0].type", "unknown content part", "content part types other than"},
	{"assistant part", `[{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}]`, "messages[0].content[0].type", "text or refusal", "content part types other than"},
	{"arguments", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"[1,2]"}}]}]`, "messages[0].tool_calls[0].function.arguments", "JSON object", "`tool_calls[].function.arguments` that is not a JSON object"},
	{"tool call id", `[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]`, "messages[0].tool_calls[0].id", "non-empty", ""},
	{"tool message id", `[{"role":"tool","content":"x"}]`, "messages[0].tool_call_id", "non-empty", ""},
	{"unknown message member", `[{"role":"user","content":"a","weight":2}]`, "messages[0].weight", "unknown", "message member"},
	{"unknown part member", `[{"role":"user","content":[{"type":"text","text":"a","lang":"en"}]}]`, "messages[0].content[0].lang", "unknown", "content-part member"},
	{"system part", `[{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}]`, "messages[0].content[0].type", "only text parts", ""},
	{"role", `[{"role":"robot","content":"a"}]`, "messages[0].role", "expected", ""},
	{"empty user content", `[{"role":"user","content":[]}]`, "messages[0].content", "non-empty", ""},
}

func TestChatToMessagesRequestRejects(t *testing.T) {
	doc, err := os.ReadFile("UNSUPPORTED.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range anthChatRejects {
		t.Run(c.name, func(t *testing.T) {
			_, err := ChatToMessagesRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],`+c.body+`}`), 4096)
			anthWantError(t, err, c.param, c.msg)
			if !strings.Contains(string(doc), c.listed) {
				t.Fatalf("UNSUPPORTED.md does not list %q", c.listed)
			}
		})
	}
	for _, c := range anthChatMessageRejects {
		t.Run(c.name, func(t *testing.T) {
			_, err := ChatToMessagesRequest([]byte(`{"model":"m","messages":`+c.messages+`}`), 4096)
			anthWantError(t, err, c.param, c.msg)
			if !strings.Contains(string(doc), c.listed) {
				t.Fatalf("UNSUPPORTED.md does not list %q", c.listed)
			}
		})
	}
	for _, body := range []string{`nope`, `[1]`, `{"messages":[]}`, `{"model":"m"}`, `{"model":"m","messages":[],"max_tokens":0}`,
		`{"model":"m","messages":[],"stop":5}`, `{"model":"m","messages":[],"stream":"yes"}`} {
		var te *translate.Error
		_, err := ChatToMessagesRequest([]byte(body), 10)
		if err == nil || !asError(err, &te) {
			t.Errorf("%s: want *translate.Error, got %v", body, err)
		}
	}
}

func asError(err error, te **translate.Error) bool {
	e, ok := err.(*translate.Error)
	*te = e
	return ok
}

// TestChatReasoningOntoThinking: reasoning_effort and the reasoning object
// ({"effort"} or OpenRouter's {"max_tokens"}) turn on extended thinking;
// a cap too small for the smallest budget is raised by it, and the raise is
// reported as a revision.
func TestChatReasoningOntoThinking(t *testing.T) {
	const msg = `"model":"claude-x","messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct {
		name, body        string
		maxTokens, budget int64
		revised           bool
	}{
		{"effort", msg + `,"reasoning_effort":"medium","max_tokens":20000`, 20000, 8192, false},
		{"reasoning object", msg + `,"reasoning":{"effort":"high","summary":"auto"}`, 4096 + 16384, 16384, false},
		{"reasoning budget", msg + `,"reasoning":{"max_tokens":3000},"max_tokens":9000`, 9000, 3000, false},
		{"small cap raised", msg + `,"reasoning_effort":"low","max_tokens":300`, 1324, 1024, true},
		{"reasoning none", msg + `,"reasoning":{"effort":"none"},"max_tokens":300`, 300, 0, false},
	} {
		out, revs, err := ChatToMessagesRequestRevised([]byte("{"+c.body+"}"), 4096)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := gjson.ParseBytes(out)
		if r.Get("max_tokens").Int() != c.maxTokens || r.Get("thinking.budget_tokens").Int() != c.budget {
			t.Errorf("%s: %s", c.name, out)
		}
		if c.revised != (len(revs) == 1) {
			t.Fatalf("%s: revisions %+v", c.name, revs)
		}
		if c.revised && (revs[0].Rewriter != "fit_thinking_budget" ||
			revs[0].Detail != `{"max_tokens_before":300,"max_tokens_after":1324,"thinking_budget":1024}`) {
			t.Errorf("%s: revision %+v", c.name, revs[0])
		}
	}
	for _, bad := range []string{`,"reasoning":"high"`, `,"reasoning":{"max_tokens":10}`} {
		if _, _, err := ChatToMessagesRequestRevised([]byte("{"+msg+bad+"}"), 4096); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
