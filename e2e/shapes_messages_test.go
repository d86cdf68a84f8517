package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/tidwall/sjson"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// bodyTap records the request bodies an SDK sends.
type bodyTap struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (b *bodyTap) middleware(req *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
	if req.Body != nil {
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		b.mu.Lock()
		b.bodies = append(b.bodies, raw)
		b.mu.Unlock()
	}
	return next(req)
}

func (b *bodyTap) last(t testing.TB) []byte {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.bodies) == 0 {
		t.Fatal("the SDK sent no body")
	}
	return b.bodies[len(b.bodies)-1]
}

// messagesRequest is the /v1/messages request the tests send for a
// fixture: the request that fixture was recorded for, as near as matters.
func messagesRequest(model, fix string) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 256,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello world"))},
	}
	switch {
	case strings.Contains(fix, "tools"):
		p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}
		p.Tools = []anthropic.ToolUnionParam{anthropicWeatherTool}
	case strings.Contains(fix, "thinking"), strings.Contains(fix, "reasoning"):
		p.MaxTokens = 4096
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(2048)
		p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Solve x + 5 = 12"))}
	case strings.Contains(fix, "multimodal"):
		p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(
			anthropic.NewTextBlock("Which colors are in this image?"),
			anthropic.NewImageBlockBase64("image/png", "iVBORw0KGgo="),
		)}
	case strings.Contains(fix, "multi_turn"):
		p.System = []anthropic.TextBlockParam{{Text: "Answer with a number only."}}
		p.Messages = []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("What is 2 to the power of 3?")),
			anthropic.NewAssistantMessage(anthropic.NewTextBlock("8")),
			anthropic.NewUserMessage(anthropic.NewTextBlock("And doubled?")),
		}
	case strings.Contains(fix, "params"):
		p.MaxTokens = 50
		p.Temperature = anthropic.Float(0.25)
		p.TopP = anthropic.Float(0.5)
		p.StopSequences = []string{"3"}
	}
	return p
}

// messageParts joins the text blocks of an SDK message.
func messageParts(m *anthropic.Message) (text, thinking string, tools []anthropic.ContentBlockUnion) {
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text += b.Text
		case "thinking":
			thinking += b.Thinking
		case "tool_use":
			tools = append(tools, b)
		}
	}
	return text, thinking, tools
}

// TestShapesMessagesNativeAnthropic sends every Anthropic fixture through
// /v1/messages with the official Anthropic SDK onto an Anthropic upstream:
// native passthrough, so the request reaches the upstream as sent (only
// the model renamed) and the answer reaches the client byte for byte.
func TestShapesMessagesNativeAnthropic(t *testing.T) {
	g, ups := startMatrixGateway(t)
	tap := &bodyTap{}
	client := anthropicClient(g, masterKey)
	model := "anth/" + claudeModel
	names := []string{"messages.json", "messages_with_tools.json", "messages_extended_thinking.json",
		"messages_multimodal.json", "messages_multi_turn.json", "messages_with_params.json"}
	for _, fix := range names {
		t.Run(fix, func(t *testing.T) {
			ups.anth.Reset()
			ups.anth.Respond(fix)
			want := anthropicFixture(t, fix)
			m, err := client.Messages.New(context.Background(), messagesRequest(model, fix), aoption.WithMiddleware(tap.middleware))
			if err != nil {
				t.Fatalf("SDK error: %v", err)
			}
			if m.RawJSON() != strings.TrimSpace(string(fixtures.Must(t, "anthropic", fix))) {
				t.Errorf("answer not passed through unchanged:\n got %s\nwant %s", m.RawJSON(), fixtures.Must(t, "anthropic", fix))
			}
			text, thinking, tools := messageParts(m)
			if text != want.Text || thinking != want.Thinking || string(m.StopReason) != want.Stop {
				t.Errorf("SDK saw text %q thinking %d bytes stop %q; fixture %q, %d bytes, %q", text, len(thinking),
					m.StopReason, want.Text, len(want.Thinking), want.Stop)
			}
			if want.ToolName != "" && (len(tools) != 1 || tools[0].ID != want.ToolID || tools[0].Name != want.ToolName ||
				!jsonEqual(string(tools[0].Input), want.ToolInput)) {
				t.Errorf("tool_use blocks = %+v, fixture %s %s(%s)", tools, want.ToolID, want.ToolName, want.ToolInput)
			}
			if m.Usage.InputTokens != want.Input || m.Usage.OutputTokens != want.Output || m.Usage.CacheReadInputTokens != want.CacheRead {
				t.Errorf("usage = %s", m.Usage.RawJSON())
			}
			r := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r)
			sent, _ := sjson.SetBytes(tap.last(t), "model", claudeModel)
			if !jsonEqual(string(r.Body), string(sent)) {
				t.Errorf("upstream body differs from the client's (model aside):\n got %s\nsent %s", r.Body, sent)
			}
		})
	}

	// The recorded stream ends without the blank line after its last
	// event (message_stop); the live API sends one. Both pass through
	// unchanged; the SDK only dispatches a terminated event.
	for _, terminated := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream terminated=%v", terminated), func(t *testing.T) {
			ups.anth.Reset()
			if terminated {
				raw := append(fixtures.Must(t, "anthropic", "messages_stream.txt"), '\n')
				ups.anth.Script(func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeSSE(w, raw) })
				defer ups.anth.Respond("messages.json")
			}
			stream := client.Messages.NewStreaming(context.Background(), messagesRequest(model, "messages.json"))
			msg, types := accumulateMessage(t, stream)
			text, _, _ := messageParts(&msg)
			if text != "Hello World" || msg.StopReason != anthropic.StopReasonEndTurn || msg.Usage.InputTokens != 10 || msg.Usage.OutputTokens != 5 {
				t.Errorf("accumulated %q stop %q usage %d/%d", text, msg.StopReason, msg.Usage.InputTokens, msg.Usage.OutputTokens)
			}
			want := "message_start,content_block_start,content_block_delta,content_block_stop,message_delta" // ping is not surfaced
			if terminated {
				want += ",message_stop"
			}
			if got := strings.Join(types, ","); got != want {
				t.Errorf("SDK events = %s, want %s", got, want)
			}
			r := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r)
			if r.JSON(t)["stream"] != true {
				t.Errorf("upstream stream = %v", r.JSON(t)["stream"])
			}
		})
	}

	t.Run("json bytes", func(t *testing.T) {
		ups.anth.Respond("messages_with_tools.json")
		defer ups.anth.Respond("messages.json")
		res := request(t, "POST", g.URL+"/v1/messages",
			`{"model":"`+model+`","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 || res.Header.Get("X-Modelgate-Provider") != "anth" {
			t.Fatalf("status %d, provider %q: %s", res.Status, res.Header.Get("X-Modelgate-Provider"), res.Body)
		}
		if raw := fixtures.Must(t, "anthropic", "messages_with_tools.json"); !bytes.Equal(res.Body, raw) {
			t.Errorf("answer not passed through byte for byte:\n got %q\nwant %q", res.Body, raw)
		}
	})

	t.Run("stream bytes", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/messages",
			`{"model":"`+model+`","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		expectRelayedStream(t, res, "anthropic", "messages_stream.txt")
	})
}

// TestShapesMessagesToChatFamilies sends /v1/messages with the Anthropic
// SDK onto the OpenAI-family upstreams (openai, groq, gemini), whose chat
// fixtures the gateway translates back into Anthropic messages.
func TestShapesMessagesToChatFamilies(t *testing.T) {
	g, ups := startMatrixGateway(t)
	client := anthropicClient(g, masterKey)
	names := []string{"chat_completion.json", "chat_with_tools.json", "chat_with_params.json", "chat_multi_turn.json",
		"chat_json_mode.json", "chat_multimodal.json", "chat_completion_reasoning.json"}
	ran := 0
	for _, f := range replayFamilies {
		u := ups.byFamily(f.family)
		for _, fix := range names {
			if !fixtures.Exists(f.family, fix) {
				continue
			}
			ran++
			t.Run(f.family+"/"+fix, func(t *testing.T) {
				u.Reset()
				u.Respond(fix)
				want := chatFixture(t, f.family, fix)
				wc := want.Choices[0]
				model := f.family + "/" + f.model
				m, err := client.Messages.New(context.Background(), messagesRequest(model, fix))
				if err != nil {
					t.Fatalf("SDK error: %v", err)
				}
				if m.Type != "message" || m.Role != "assistant" || string(m.Model) != f.model {
					t.Errorf("type %q role %q model %q", m.Type, m.Role, m.Model)
				}
				text, _, tools := messageParts(m)
				wantText := ""
				if wc.Message.Content != nil {
					wantText = *wc.Message.Content
				}
				if text != wantText {
					t.Errorf("text = %q, fixture %q", text, wantText)
				}
				wantStop := anthropic.StopReasonEndTurn
				if wc.FinishReason == "tool_calls" {
					wantStop = anthropic.StopReasonToolUse
				}
				if m.StopReason != wantStop {
					t.Errorf("stop_reason = %q, want %q for finish_reason %q", m.StopReason, wantStop, wc.FinishReason)
				}
				if len(tools) != len(wc.Message.ToolCalls) {
					t.Fatalf("SDK saw %d tool_use blocks, fixture has %d tool calls", len(tools), len(wc.Message.ToolCalls))
				}
				for i, tc := range wc.Message.ToolCalls {
					if tools[i].ID != tc.ID || tools[i].Name != tc.Function.Name || !jsonEqual(string(tools[i].Input), tc.Function.Arguments) {
						t.Errorf("tool_use %d = %s %s(%s), fixture %s %s(%s)", i, tools[i].ID, tools[i].Name, tools[i].Input,
							tc.ID, tc.Function.Name, tc.Function.Arguments)
					}
				}
				if m.Usage.InputTokens != want.Usage.Prompt || m.Usage.OutputTokens != want.Usage.Completion {
					t.Errorf("usage = %d/%d, fixture prompt %d completion %d", m.Usage.InputTokens, m.Usage.OutputTokens,
						want.Usage.Prompt, want.Usage.Completion)
				}
				body := checkUpstreamChat(t, f, u.LastChat(t))
				checkTranslatedChatBody(t, f, fix, body)
			})
		}
		t.Run(f.family+"/stream", func(t *testing.T) {
			u.Reset()
			raw := fixtures.Must(t, f.family, "chat_completion_stream.txt")
			want := summarizeStream(t, raw)
			stream := client.Messages.NewStreaming(context.Background(), messagesRequest(f.family+"/"+f.model, ""))
			msg, types := accumulateMessage(t, stream)
			text, _, _ := messageParts(&msg)
			if text != want.Content {
				t.Errorf("accumulated text = %q, fixture %q", text, want.Content)
			}
			if msg.StopReason != anthropic.StopReasonEndTurn {
				t.Errorf("stop_reason = %q", msg.StopReason)
			}
			switch {
			case want.Prompt == 0 && want.Completion == 0:
				// The upstream reported no usage: the input is the
				// gateway's estimate, the output unknown.
				if msg.Usage.InputTokens <= 0 || msg.Usage.OutputTokens != 0 {
					t.Errorf("usage = %d/%d, want the estimated input and no output", msg.Usage.InputTokens, msg.Usage.OutputTokens)
				}
			case msg.Usage.InputTokens != want.Prompt || msg.Usage.OutputTokens != want.Completion:
				t.Errorf("usage = %d/%d, fixture %d/%d", msg.Usage.InputTokens, msg.Usage.OutputTokens, want.Prompt, want.Completion)
			}
			seq := strings.Join(types, ",")
			if !strings.HasPrefix(seq, "message_start,content_block_start,") || !strings.HasSuffix(seq, "content_block_stop,message_delta,message_stop") {
				t.Errorf("event sequence = %s", seq)
			}
			body := checkUpstreamChat(t, f, u.LastChat(t))
			if body["stream"] != true || jsonAt(body, "stream_options.include_usage") != true {
				t.Errorf("upstream stream=%v stream_options=%v", body["stream"], body["stream_options"])
			}
		})
	}
	if ran < 11 {
		t.Fatalf("only %d fixture cases ran; fixtures missing?", ran)
	}
}

// checkTranslatedChatBody checks the chat request a translated /v1/messages
// request became for fixture fix.
func checkTranslatedChatBody(t *testing.T, f replayFamily, fix string, body map[string]any) {
	t.Helper()
	maxKey := "max_tokens"
	if f.family == "openai" {
		maxKey = "max_completion_tokens"
	}
	switch {
	case strings.Contains(fix, "tools"):
		if jsonAt(body, "tools.0.type") != "function" || jsonAt(body, "tools.0.function.name") != "get_weather" ||
			jsonAt(body, "tools.0.function.parameters.type") != "object" {
			t.Errorf("upstream tools = %v", body["tools"])
		}
	case strings.Contains(fix, "reasoning"):
		if body["reasoning_effort"] != "low" {
			t.Errorf("upstream reasoning_effort = %v, want low for a 2048-token budget", body["reasoning_effort"])
		}
	case strings.Contains(fix, "multimodal"):
		if jsonAt(body, "messages.0.content.1.type") != "image_url" ||
			jsonAt(body, "messages.0.content.1.image_url.url") != "data:image/png;base64,iVBORw0KGgo=" {
			t.Errorf("upstream image part = %v", jsonAt(body, "messages.0.content"))
		}
	case strings.Contains(fix, "multi_turn"):
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 4 || jsonAt(msgs, "0.role") != "system" || !strings.Contains(fmt.Sprint(jsonAt(msgs, "0.content")), "Answer with a number only.") ||
			jsonAt(msgs, "2.role") != "assistant" {
			t.Errorf("upstream messages = %v, want system/user/assistant/user", body["messages"])
		}
	case strings.Contains(fix, "params"):
		if body["temperature"] != 0.25 || body["top_p"] != 0.5 || body[maxKey] != 50.0 || fmt.Sprint(body["stop"]) != "[3]" {
			t.Errorf("upstream params: temperature=%v top_p=%v %s=%v stop=%v", body["temperature"], body["top_p"], maxKey,
				body[maxKey], body["stop"])
		}
		return
	}
	if body[maxKey] == nil {
		t.Errorf("upstream lacks %s: %v", maxKey, body)
	}
}

// TestShapesCountTokens: /v1/messages/count_tokens through the Anthropic
// SDK is native on an Anthropic provider and a local estimate elsewhere.
func TestShapesCountTokens(t *testing.T) {
	g, ups := startMatrixGateway(t)
	client := anthropicClient(g, masterKey)
	params := func(model string) anthropic.MessageCountTokensParams {
		return anthropic.MessageCountTokensParams{
			Model:    anthropic.Model(model),
			System:   anthropic.MessageCountTokensParamsSystemUnion{OfString: anthropic.String("You are a weather bot.")},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris today?"))},
			Tools:    []anthropic.MessageCountTokensToolUnionParam{{OfTool: anthropicWeatherTool.OfTool}},
		}
	}
	t.Run("native on anthropic", func(t *testing.T) {
		ups.anth.Reset()
		n, err := client.Messages.CountTokens(context.Background(), params("anth/"+claudeModel))
		if err != nil {
			t.Fatalf("SDK error: %v", err)
		}
		if n.InputTokens != 37 {
			t.Errorf("input_tokens = %d, want the upstream's 37", n.InputTokens)
		}
		rs := ups.anth.Requests("/v1/messages/count_tokens")
		if len(rs) != 1 {
			t.Fatalf("anthropic upstream got %d count_tokens requests", len(rs))
		}
		checkAnthropicHeaders(t, rs[0])
		body := rs[0].JSON(t)
		if body["model"] != claudeModel || jsonAt(body, "tools.0.name") != "get_weather" {
			t.Errorf("upstream count_tokens body = %s", rs[0].Body)
		}
	})
	t.Run("estimate on groq", func(t *testing.T) {
		ups.groq.Reset()
		f := familyOf(t, "groq")
		small, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
			Model:    anthropic.Model("groq/" + f.model),
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
		})
		if err != nil {
			t.Fatalf("SDK error: %v", err)
		}
		big, err := client.Messages.CountTokens(context.Background(), params("groq/"+f.model))
		if err != nil {
			t.Fatalf("SDK error: %v", err)
		}
		if small.InputTokens <= 0 || big.InputTokens <= small.InputTokens {
			t.Errorf("estimates: %d for \"hi\", %d for a longer request with a tool; want positive and growing",
				small.InputTokens, big.InputTokens)
		}
		if rs := ups.groq.Requests(""); len(rs) != 0 {
			for _, r := range rs {
				if r.Path != "/v1/models" {
					t.Errorf("groq upstream got %s %s for a count_tokens estimate", r.Method, r.Path)
				}
			}
		}
		body, _ := json.Marshal(map[string]any{"model": "groq/" + f.model, "messages": []any{map[string]any{"role": "user", "content": "hi"}}})
		res := request(t, "POST", g.URL+"/v1/messages/count_tokens", string(body), bearer(masterKey)...)
		if res.Status != 200 || res.Header.Get("X-Modelgate-Token-Count") != "estimate" {
			t.Errorf("status %d, X-Modelgate-Token-Count %q: %s", res.Status, res.Header.Get("X-Modelgate-Token-Count"), res.Body)
		}
	})
}
