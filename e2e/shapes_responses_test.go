package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/sjson"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// serveResponses makes the OpenAI replay answer POST /v1/responses with
// responses.json, or responses_stream.txt (with its event: lines) when the
// request streams.
func serveResponses(u *replay) {
	u.Handle("/v1/responses", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if requestsStream(body) {
			u.replayFixture(w, "responses_stream.txt", true)
			return
		}
		u.replayFixture(w, "responses.json", false)
	})
}

// responsesRequest is the Responses request sent for fixture fix.
func responsesRequest(model, fix string) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model: model,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello world")},
	}
	switch {
	case strings.Contains(fix, "tools"):
		p.Input = responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the weather in Paris?")}
		p.Tools = []responses.ToolUnionParam{responsesWeatherTool}
	case strings.Contains(fix, "thinking"):
		p.Input = responses.ResponseNewParamsInputUnion{OfString: openai.String("Solve x + 5 = 12")}
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffortLow}
	case strings.Contains(fix, "multimodal"):
		p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: "Which colors are in this image?"}},
				{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String("data:image/png;base64,iVBORw0KGgo="),
					Detail: responses.ResponseInputImageDetailAuto}},
			}, responses.EasyInputMessageRoleUser),
		}}
	case strings.Contains(fix, "params"):
		p.Instructions = openai.String("Be brief.")
		p.Temperature = openai.Float(0.25)
		p.TopP = openai.Float(0.5)
		p.MaxOutputTokens = openai.Int(50)
	}
	return p
}

// responsesWant is what a client of the Responses API should see.
type responsesWant struct {
	text               string
	toolID, toolName   string
	toolArgs           string
	input, output, tot int64
	cached             int64
	reasoning          string // reasoning text, if any
	hasUsage           bool
}

func responsesWantFromChat(t *testing.T, family, fix string) responsesWant {
	c := chatFixture(t, family, fix)
	w := responsesWant{input: c.Usage.Prompt, output: c.Usage.Completion, tot: c.Usage.Total, hasUsage: true}
	if c.Choices[0].Message.Content != nil {
		w.text = *c.Choices[0].Message.Content
	}
	if tcs := c.Choices[0].Message.ToolCalls; len(tcs) > 0 {
		w.toolID, w.toolName, w.toolArgs = tcs[0].ID, tcs[0].Function.Name, tcs[0].Function.Arguments
	}
	return w
}

func responsesWantFromAnthropic(t *testing.T, fix string) responsesWant {
	f := anthropicFixture(t, fix)
	in := f.Input + f.CacheRead + f.CacheW
	return responsesWant{text: f.Text, toolID: f.ToolID, toolName: f.ToolName, toolArgs: f.ToolInput,
		input: in, output: f.Output, tot: in + f.Output, cached: f.CacheRead, reasoning: f.Thinking, hasUsage: true}
}

// checkResponse compares what the SDK parsed with want.
func checkResponse(t *testing.T, got *responses.Response, want responsesWant) {
	t.Helper()
	if got.Object != "response" || got.Status != responses.ResponseStatusCompleted {
		t.Errorf("object %q status %q", got.Object, got.Status)
	}
	if got.OutputText() != want.text {
		t.Errorf("output text = %q, want %q", got.OutputText(), want.text)
	}
	var calls []responses.ResponseOutputItemUnion
	reasoning := ""
	for _, it := range got.Output {
		switch it.Type {
		case "function_call":
			calls = append(calls, it)
		case "reasoning":
			for _, c := range it.Content {
				reasoning += c.Text
			}
		}
	}
	if want.toolName != "" {
		if len(calls) != 1 {
			t.Fatalf("%d function_call items, want 1: %s", len(calls), got.RawJSON())
		}
		c := calls[0]
		if c.CallID != want.toolID || c.Name != want.toolName || !jsonEqual(c.Arguments.OfString, want.toolArgs) {
			t.Errorf("function_call = %s %s(%s), want %s %s(%s)", c.CallID, c.Name, c.Arguments.OfString,
				want.toolID, want.toolName, want.toolArgs)
		}
	} else if len(calls) != 0 {
		t.Errorf("unexpected function calls: %v", calls)
	}
	if reasoning != want.reasoning {
		t.Errorf("reasoning text = %q, want %q", reasoning, want.reasoning)
	}
	u := got.Usage
	if want.hasUsage && (u.InputTokens != want.input || u.OutputTokens != want.output || u.TotalTokens != want.tot ||
		u.InputTokensDetails.CachedTokens != want.cached) {
		t.Errorf("usage = %s, want %d/%d/%d cached %d", u.RawJSON(), want.input, want.output, want.tot, want.cached)
	}
}

// streamResponse runs a streamed Responses request and returns the text
// deltas joined, the final response and the event types.
func streamResponse(t *testing.T, client openai.Client, p responses.ResponseNewParams, opts ...option.RequestOption) (string, *responses.Response, []string) {
	t.Helper()
	stream := client.Responses.NewStreaming(context.Background(), p, opts...)
	var text strings.Builder
	var final *responses.Response
	var types []string
	lastSeq := int64(-1)
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.SequenceNumber <= lastSeq {
			t.Errorf("sequence_number %d after %d", ev.SequenceNumber, lastSeq)
		}
		lastSeq = ev.SequenceNumber
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.completed", "response.failed", "response.incomplete":
			r := ev.Response
			final = &r
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream error: %v", err)
	}
	_ = stream.Close()
	return text.String(), final, types
}

// TestShapesResponsesNativeOpenAI: /v1/responses onto a provider of type
// openai passes through both ways: the request as sent (model renamed),
// the answer and the stream byte for byte.
func TestShapesResponsesNativeOpenAI(t *testing.T) {
	g, ups := startMatrixGateway(t)
	serveResponses(ups.openai)
	client := openaiClient(g, masterKey)
	f := familyOf(t, "openai")
	model := "openai/" + f.model

	t.Run("json", func(t *testing.T) {
		ups.openai.Reset()
		var sent []byte
		got, err := client.Responses.New(context.Background(), responsesRequest(model, "responses_tools"),
			option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				sent, _ = io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(sent))
				return next(r)
			}))
		if err != nil {
			t.Fatalf("SDK error: %v", err)
		}
		if got.ID != "resp_0d8b81b7c805508d0069a31431b68c8194af45c94a6952706b" || got.RawJSON() != strings.TrimSpace(string(fixtures.Must(t, "openai", "responses.json"))) {
			t.Errorf("answer not passed through unchanged: %s", got.RawJSON())
		}
		checkResponse(t, got, responsesWant{text: "Hello, World!", input: 17, output: 5, tot: 22, hasUsage: true})
		rs := ups.openai.Requests("/v1/responses")
		if len(rs) != 1 {
			t.Fatalf("openai upstream got %d /v1/responses requests", len(rs))
		}
		if len(ups.openai.Requests("/v1/chat/completions")) != 0 {
			t.Error("native Responses request was translated to chat")
		}
		if rs[0].Header.Get("Authorization") != "Bearer "+f.key {
			t.Errorf("upstream Authorization = %q", rs[0].Header.Get("Authorization"))
		}
		noSecret(t, rs[0], masterKey)
		want, _ := sjson.SetBytes(sent, "model", f.model)
		if !jsonEqual(string(rs[0].Body), string(want)) {
			t.Errorf("upstream body differs from the client's (model aside):\n got %s\nsent %s", rs[0].Body, sent)
		}
	})

	// The recording ends without the blank line after response.completed
	// (the live API sends one). Passed through unchanged, the SDK cannot
	// dispatch that last event; terminated, it can.
	for _, terminated := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream terminated=%v", terminated), func(t *testing.T) {
			ups.openai.Reset()
			if terminated {
				raw := append(fixtures.Must(t, "openai", "responses_stream.txt"), '\n')
				ups.openai.Handle("/v1/responses", func(w http.ResponseWriter, _ *http.Request) { writeSSE(w, raw) })
				defer serveResponses(ups.openai)
			}
			text, final, types := streamResponse(t, client, responsesRequest(model, ""))
			if text != "Hello, World!" {
				t.Errorf("streamed text = %q", text)
			}
			last := "response.output_item.done"
			if terminated {
				last = "response.completed"
			}
			if len(types) < 10 || types[0] != "response.created" || types[len(types)-1] != last {
				t.Errorf("event types = %v", types)
			}
			if terminated {
				if final == nil {
					t.Fatal("no response.completed")
				}
				checkResponse(t, final, responsesWant{text: "Hello, World!", input: 17, output: 5, tot: 22, hasUsage: true})
			}
			rs := ups.openai.Requests("/v1/responses")
			if len(rs) != 1 || rs[0].JSON(t)["stream"] != true {
				t.Errorf("upstream got %d /v1/responses requests", len(rs))
			}
		})
	}

	t.Run("stream bytes", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/responses",
			`{"model":"`+model+`","stream":true,"input":"hi"}`, bearer(masterKey)...)
		expectRelayedStream(t, res, "openai", "responses_stream.txt")
	})

	// Codex CLI sends client_metadata on every turn: OpenAI takes it, so
	// it goes upstream untouched.
	t.Run("client_metadata forwarded", func(t *testing.T) {
		ups.openai.Reset()
		res := request(t, "POST", g.URL+"/v1/responses",
			`{"model":"`+model+`","input":"hi","client_metadata":{"x-codex-turn-metadata":"{\"turn\":1}"}}`, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		rs := ups.openai.Requests("/v1/responses")
		if len(rs) != 1 || !strings.Contains(string(rs[0].Body), `"client_metadata":{"x-codex-turn-metadata":"{\"turn\":1}"}`) {
			t.Errorf("client_metadata not forwarded: %d requests %s", len(rs), rs)
		}
	})
}

// TestShapesResponsesTranslated: /v1/responses through the OpenAI SDK
// onto chat-only upstreams (groq, gemini: Responses → Chat) and onto
// Anthropic (Responses → Chat → Messages, chained).
func TestShapesResponsesTranslated(t *testing.T) {
	g, ups := startMatrixGateway(t)
	client := openaiClient(g, masterKey)

	for _, fam := range []string{"groq", "gemini"} {
		f := familyOf(t, fam)
		u := ups.byFamily(fam)
		model := fam + "/" + f.model
		for _, fix := range []string{"chat_completion.json", "chat_with_tools.json", "chat_with_params.json"} {
			t.Run(fam+"/"+fix, func(t *testing.T) {
				u.Reset()
				u.Respond(fix)
				got, err := client.Responses.New(context.Background(), responsesRequest(model, fix))
				if err != nil {
					t.Fatalf("SDK error: %v", err)
				}
				checkResponse(t, got, responsesWantFromChat(t, fam, fix))
				if !strings.HasPrefix(got.ID, "resp_") {
					t.Errorf("id = %q", got.ID)
				}
				body := checkUpstreamChat(t, f, u.LastChat(t))
				switch {
				case strings.Contains(fix, "tools"):
					if jsonAt(body, "tools.0.type") != "function" || jsonAt(body, "tools.0.function.name") != "get_weather" ||
						jsonAt(body, "tools.0.function.strict") != true || jsonAt(body, "tools.0.function.parameters.type") != "object" {
						t.Errorf("upstream tools = %v", body["tools"])
					}
				case strings.Contains(fix, "params"):
					if body["temperature"] != 0.25 || body["top_p"] != 0.5 || body["max_tokens"] != 50.0 ||
						jsonAt(body, "messages.0.role") != "system" || jsonAt(body, "messages.0.content") != "Be brief." {
						t.Errorf("upstream params: temperature=%v top_p=%v max_tokens=%v messages=%v", body["temperature"],
							body["top_p"], body["max_tokens"], body["messages"])
					}
					if _, ok := body["max_completion_tokens"]; ok {
						t.Errorf("max_completion_tokens sent to %s", fam)
					}
				default:
					if jsonAt(body, "messages.0.role") != "user" || jsonAt(body, "messages.0.content") != "Say hello world" {
						t.Errorf("upstream messages = %v", body["messages"])
					}
				}
			})
		}
		t.Run(fam+"/stream", func(t *testing.T) {
			u.Reset()
			want := summarizeStream(t, fixtures.Must(t, fam, "chat_completion_stream.txt"))
			text, final, types := streamResponse(t, client, responsesRequest(model, ""))
			if text != want.Content {
				t.Errorf("streamed text = %q, fixture %q", text, want.Content)
			}
			if final == nil {
				t.Fatalf("no response.completed event; events %v", types)
			}
			if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
				t.Errorf("event types = %v", types)
			}
			checkResponse(t, final, responsesWant{text: want.Content, input: want.Prompt, output: want.Completion,
				tot: want.Total, hasUsage: want.Total > 0})
			if want.Total == 0 && final.JSON.Usage.Raw() != "null" {
				t.Errorf("usage = %s, want null when the upstream reported none", final.JSON.Usage.Raw())
			}
			body := checkUpstreamChat(t, f, u.LastChat(t))
			if body["stream"] != true || jsonAt(body, "stream_options.include_usage") != true {
				t.Errorf("upstream stream=%v stream_options=%v", body["stream"], body["stream_options"])
			}
		})
	}

	model := "anth/" + claudeModel
	for _, fix := range []string{"messages.json", "messages_with_tools.json", "messages_extended_thinking.json",
		"messages_multi_turn.json", "messages_multimodal.json", "messages_with_params.json"} {
		t.Run("anthropic/"+fix, func(t *testing.T) {
			ups.anth.Reset()
			ups.anth.Respond(fix)
			p := responsesRequest(model, fix)
			if strings.Contains(fix, "multi_turn") {
				p.Instructions = openai.String("Answer with a number only.")
				p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
					responses.ResponseInputItemParamOfMessage("What is 2 to the power of 3?", responses.EasyInputMessageRoleUser),
					responses.ResponseInputItemParamOfMessage("8", responses.EasyInputMessageRoleAssistant),
					responses.ResponseInputItemParamOfMessage("And doubled?", responses.EasyInputMessageRoleUser),
				}}
			}
			got, err := client.Responses.New(context.Background(), p)
			if err != nil {
				t.Fatalf("SDK error: %v", err)
			}
			checkResponse(t, got, responsesWantFromAnthropic(t, fix))
			r := ups.anth.LastMessages(t)
			checkAnthropicHeaders(t, r)
			body := r.JSON(t)
			if body["model"] != claudeModel || body["max_tokens"] == nil {
				t.Errorf("upstream model %v max_tokens %v", body["model"], body["max_tokens"])
			}
			switch {
			case strings.Contains(fix, "tools"):
				if jsonAt(body, "tools.0.name") != "get_weather" || jsonAt(body, "tools.0.input_schema.type") != "object" {
					t.Errorf("upstream tools = %v", body["tools"])
				}
			case strings.Contains(fix, "multimodal"):
				img := jsonAt(body, "messages.0.content.1")
				if jsonAt(img, "type") != "image" || jsonAt(img, "source.media_type") != "image/png" || jsonAt(img, "source.data") != "iVBORw0KGgo=" {
					t.Errorf("upstream image block = %v", img)
				}
			case strings.Contains(fix, "params"):
				if body["temperature"] != 0.25 || body["top_p"] != 0.5 || body["max_tokens"] != 50.0 ||
					!strings.Contains(fmt.Sprint(body["system"]), "Be brief.") {
					t.Errorf("upstream params: temperature=%v top_p=%v max_tokens=%v system=%v", body["temperature"],
						body["top_p"], body["max_tokens"], body["system"])
				}
			case strings.Contains(fix, "thinking"):
				if jsonAt(body, "thinking.type") != "enabled" {
					t.Errorf("upstream thinking = %v", body["thinking"])
				}
			case strings.Contains(fix, "multi_turn"):
				msgs, _ := body["messages"].([]any)
				if !strings.Contains(fmt.Sprint(body["system"]), "Answer with a number only.") || len(msgs) != 3 ||
					jsonAt(msgs, "1.role") != "assistant" {
					t.Errorf("upstream system %v messages %v", body["system"], body["messages"])
				}
			}
		})
	}
	t.Run("anthropic/stream", func(t *testing.T) {
		ups.anth.Reset()
		text, final, types := streamResponse(t, client, responsesRequest(model, ""))
		if text != "Hello World" {
			t.Errorf("streamed text = %q", text)
		}
		if final == nil {
			t.Fatalf("no response.completed event; events %v", types)
		}
		checkResponse(t, final, responsesWant{text: "Hello World", input: 10, output: 5, tot: 15, hasUsage: true})
		checkAnthropicHeaders(t, ups.anth.LastMessages(t))
		if ups.anth.LastMessages(t).JSON(t)["stream"] != true {
			t.Error("upstream request did not stream")
		}
	})
}
