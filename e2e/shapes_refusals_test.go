package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// TestShapesRefusals: a request feature the target shape cannot express is
// refused with 400 invalid_request_error naming the field, in the gateway
// shape on /v1/chat/completions and /v1/responses and in the Anthropic
// envelope on /v1/messages; nothing reaches the upstream. Each case is
// sent as raw HTTP (to check the exact error shape) and through the
// official SDK of its ingress (which must surface the 400).
func TestShapesRefusals(t *testing.T) {
	g, ups := startMatrixGateway(t)
	oai := openaiClient(g, masterKey)
	anth := anthropicClient(g, masterKey)
	groq := "groq/" + familyOf(t, "groq").model
	openaiModel := "openai/" + familyOf(t, "openai").model
	claude := "anth/" + claudeModel
	userMsg := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}
	anthMsg := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}
	respIn := responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}

	cases := []struct {
		name  string
		path  string
		body  string // raw request
		param string // the field the error must name
		sdk   func() error
	}{
		{"chat n=2 onto anthropic", "/v1/chat/completions",
			`{"model":"` + claude + `","n":2,"messages":[{"role":"user","content":"hi"}]}`, "n",
			func() error {
				_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude, Messages: userMsg, N: openai.Int(2)})
				return err
			}},
		{"chat logprobs onto anthropic", "/v1/chat/completions",
			`{"model":"` + claude + `","logprobs":true,"messages":[{"role":"user","content":"hi"}]}`, "logprobs",
			func() error {
				_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude, Messages: userMsg, Logprobs: openai.Bool(true)})
				return err
			}},
		{"chat frequency_penalty onto anthropic", "/v1/chat/completions",
			`{"model":"` + claude + `","frequency_penalty":0.5,"messages":[{"role":"user","content":"hi"}]}`, "frequency_penalty",
			func() error {
				_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude, Messages: userMsg, FrequencyPenalty: openai.Float(0.5)})
				return err
			}},
		{"chat seed onto anthropic", "/v1/chat/completions",
			`{"model":"` + claude + `","seed":7,"messages":[{"role":"user","content":"hi"}]}`, "seed",
			func() error {
				_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude, Messages: userMsg, Seed: openai.Int(7)})
				return err
			}},
		{"chat input_audio onto anthropic", "/v1/chat/completions",
			`{"model":"` + claude + `","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}]}`, "input_audio",
			func() error {
				_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude,
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
						openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{Data: "AAAA", Format: "wav"}),
					})}})
				return err
			}},
		{"messages top_k onto openai", "/v1/messages",
			`{"model":"` + openaiModel + `","max_tokens":64,"top_k":5,"messages":[{"role":"user","content":"hi"}]}`, "top_k",
			func() error {
				_, err := anth.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model(openaiModel), MaxTokens: 64, Messages: anthMsg, TopK: anthropic.Int(5)})
				return err
			}},
		{"messages web_search server tool onto groq", "/v1/messages",
			`{"model":"` + groq + `","max_tokens":64,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"hi"}]}`, "tools[0]",
			func() error {
				_, err := anth.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model(groq), MaxTokens: 64, Messages: anthMsg,
					Tools: []anthropic.ToolUnionParam{{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{}}}})
				return err
			}},
		{"messages mcp_servers onto gemini", "/v1/messages",
			`{"model":"gemini/gemini-2.5-flash","max_tokens":64,"mcp_servers":[{"type":"url","url":"https://mcp.example","name":"x"}],"messages":[{"role":"user","content":"hi"}]}`, "mcp_servers",
			nil},
		{"responses previous_response_id onto groq", "/v1/responses",
			`{"model":"` + groq + `","input":"hi","previous_response_id":"resp_123"}`, "previous_response_id",
			func() error {
				_, err := oai.Responses.New(context.Background(), responses.ResponseNewParams{Model: groq, Input: respIn, PreviousResponseID: openai.String("resp_123")})
				return err
			}},
		{"responses forced web_search tool onto groq", "/v1/responses",
			`{"model":"` + groq + `","input":"hi","tools":[{"type":"web_search"}],"tool_choice":{"type":"web_search"}}`, "tools[0].type",
			func() error {
				_, err := oai.Responses.New(context.Background(), responses.ResponseNewParams{Model: groq, Input: respIn,
					Tools: []responses.ToolUnionParam{{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}}}},
					option.WithJSONSet("tool_choice", map[string]any{"type": "web_search"}))
				return err
			}},
		{"responses previous_response_id onto anthropic", "/v1/responses",
			`{"model":"` + claude + `","input":"hi","previous_response_id":"resp_123"}`, "previous_response_id",
			func() error {
				_, err := oai.Responses.New(context.Background(), responses.ResponseNewParams{Model: claude, Input: respIn, PreviousResponseID: openai.String("resp_123")})
				return err
			}},
		{"responses reasoning with temperature 0.2 onto anthropic", "/v1/responses",
			`{"model":"` + claude + `","input":"hi","reasoning":{"effort":"low"},"temperature":0.2}`, "temperature",
			func() error {
				_, err := oai.Responses.New(context.Background(), responses.ResponseNewParams{Model: claude, Input: respIn,
					Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow}, Temperature: openai.Float(0.2)})
				return err
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ups.anth.Reset()
			ups.openai.Reset()
			ups.groq.Reset()
			ups.gemini.Reset()
			res := request(t, "POST", g.URL+c.path, c.body, bearer(masterKey)...)
			if res.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", res.Status, res.Body)
			}
			if c.path == "/v1/messages" {
				var env struct {
					Type  string `json:"type"`
					Error struct {
						Type    string `json:"type"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(res.Body, &env); err != nil || env.Type != "error" || env.Error.Type != "invalid_request_error" {
					t.Fatalf("not the Anthropic error envelope: %s", res.Body)
				}
				if !strings.Contains(env.Error.Message, c.param) {
					t.Errorf("message %q does not name %q", env.Error.Message, c.param)
				}
			} else {
				e := decodeError(t, res.Status, res.Body)
				if e.Type != "invalid_request_error" || !strings.Contains(e.Message+" "+orNull(e.Param), c.param) {
					t.Errorf("error = %+v (param %s), want invalid_request_error naming %q", e, orNull(e.Param), c.param)
				}
				if !strings.Contains(orNull(e.Param), strings.Split(c.param, ".")[0]) {
					t.Errorf("error.param = %s, want it to name %q", orNull(e.Param), c.param)
				}
			}
			if c.sdk != nil {
				err := c.sdk()
				if c.path == "/v1/messages" {
					var ae *anthropic.Error
					if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Type() != "invalid_request_error" {
						t.Errorf("Anthropic SDK error = %v, want *anthropic.Error 400 invalid_request_error", err)
					} else if !strings.Contains(ae.RawJSON(), c.param) {
						t.Errorf("Anthropic SDK error body %s does not name %q", ae.RawJSON(), c.param)
					}
				} else {
					var oe *openai.Error
					if !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest || oe.Type != "invalid_request_error" {
						t.Errorf("OpenAI SDK error = %v, want *openai.Error 400 invalid_request_error", err)
					} else if !strings.Contains(oe.Message+" "+oe.Param, c.param) {
						t.Errorf("OpenAI SDK error %q (param %q) does not name %q", oe.Message, oe.Param, c.param)
					}
				}
			}
			for name, u := range map[string]*replay{"anth": ups.anth.replay, "openai": ups.openai, "groq": ups.groq, "gemini": ups.gemini} {
				for _, r := range u.Requests("") {
					if r.Method == http.MethodPost {
						t.Errorf("%s upstream got %s %s for a refused request", name, r.Method, r.Path)
					}
				}
			}
		})
	}
}

// TestShapesChainedRefusalNamesClientField: a /v1/responses request onto
// an Anthropic model is translated twice (Responses → Chat → Messages); a
// refusal from the second step must still name the field the client sent,
// not the intermediate Chat Completions field.
func TestShapesChainedRefusalNamesClientField(t *testing.T) {
	g, _ := startMatrixGateway(t)
	claude := "anth/" + claudeModel
	cases := []struct{ body, want string }{
		{`{"model":"` + claude + `","input":"hi","tools":[{"type":"function","name":"modelgate_json_response","parameters":{"type":"object"}}]}`, "tools[0].name"},
		{`{"model":"` + claude + `","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{"type":"array"}}}}`, "text.format"},
		{`{"model":"` + claude + `","input":[{"role":"user","content":[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"data:image/bmp;base64,AAAA"}]}]}`, "input[0].content[1]"},
	}
	for _, c := range cases {
		res := request(t, "POST", g.URL+"/v1/responses", c.body, bearer(masterKey)...)
		e := decodeError(t, res.Status, res.Body)
		if res.Status != 400 || !strings.HasPrefix(orNull(e.Param), c.want) {
			t.Errorf("param %s, message %q; want the param to name the client's field %s", orNull(e.Param), e.Message, c.want)
		}
	}
	// A cap too small for Anthropic's smallest thinking budget is raised,
	// not refused (see TestChatReasoningOntoAnthropicRaisesTheCap).
	res := request(t, "POST", g.URL+"/v1/responses",
		`{"model":"`+claude+`","input":"hi","reasoning":{"effort":"low"},"max_output_tokens":500}`, bearer(masterKey)...)
	if res.Status != 200 {
		t.Errorf("reasoning with a small cap: %d %s", res.Status, res.Body)
	}
}
