package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// tripSchema is a strict-mode schema as the OpenAI SDKs send it from a
// Pydantic model: $defs, $ref, nullable anyOf, enums, formats, bounds.
const tripSchema = `{"$defs":{"Stop":{"properties":{"city":{"title":"City","type":"string","minLength":2},"arrive":{"format":"date","title":"Arrive","type":"string"},"nights":{"maximum":14,"minimum":1,"title":"Nights","type":"integer"},"note":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Note"}},"required":["city","arrive","nights","note"],"title":"Stop","type":"object","additionalProperties":false}},"properties":{"title":{"title":"Title","type":"string"},"travellers":{"title":"Travellers","type":"integer","minimum":1},"mode":{"enum":["train","plane","car"],"title":"Mode","type":"string"},"budget":{"title":"Budget","type":"number","exclusiveMinimum":0,"multipleOf":0.01},"stops":{"items":{"$ref":"#/$defs/Stop"},"title":"Stops","type":"array","minItems":2}},"required":["title","travellers","mode","budget","stops"],"title":"Trip","type":"object","additionalProperties":false}`

// searchParams are the parameters of the second tool the parallel call
// tests offer.
const searchParams = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":5,"maximum":20},"sources":{"type":"array","items":{"type":"string","enum":["web","news"]},"minItems":1}},"required":["query","limit","sources"],"additionalProperties":false}`

// schemaMap decodes a schema for an SDK parameter.
func schemaMap(t testing.TB, schema string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// mustValidate fails t unless doc is JSON valid against schema.
func mustValidate(t testing.TB, schema, doc string) {
	t.Helper()
	sdoc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", sdoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid against the schema: %v\n%s", err, doc)
	}
}

// TestMockStructuredOutput: through the gateway, the mock answers a
// json_schema response format with a document valid against the schema,
// the same whole or streamed, on Chat Completions, Responses and
// Anthropic Messages.
func TestMockStructuredOutput(t *testing.T) {
	g := startMockGateway(t)
	client := openaiClient(g, masterKey)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "mock-chat",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Plan a trip to Rome")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "trip", Schema: schemaMap(t, tripSchema), Strict: openai.Bool(true)},
		}},
	}

	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	content := resp.Choices[0].Message.Content
	mustValidate(t, tripSchema, content)
	if resp.Choices[0].FinishReason != "stop" || resp.Usage.CompletionTokens <= 0 {
		t.Errorf("finish %q usage %+v", resp.Choices[0].FinishReason, resp.Usage)
	}
	var trip struct {
		Title string `json:"title"`
		Stops []struct {
			City   string `json:"city"`
			Nights int    `json:"nights"`
		} `json:"stops"`
	}
	if err := json.Unmarshal([]byte(content), &trip); err != nil || trip.Title != "Plan a trip to Rome" || len(trip.Stops) != 2 {
		t.Errorf("decoded %+v (%v) from %s", trip, err, content)
	}

	t.Run("chat streamed", func(t *testing.T) {
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		var acc openai.ChatCompletionAccumulator
		chunks := 0
		for stream.Next() {
			acc.AddChunk(stream.Current())
			chunks++
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if got := acc.Choices[0].Message.Content; got != content {
			t.Errorf("streamed content differs:\n%s\n%s", got, content)
		}
		if chunks < 4 {
			t.Errorf("the document came in %d chunks", chunks)
		}
	})

	t.Run("responses text.format", func(t *testing.T) {
		p := responses.ResponseNewParams{
			Model: "mock-chat",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Plan a trip to Rome")},
			Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
				OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "trip", Schema: schemaMap(t, tripSchema), Strict: openai.Bool(true)},
			}},
		}
		r, err := client.Responses.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		mustValidate(t, tripSchema, r.OutputText())
		text, final, _ := streamResponse(t, client, p)
		mustValidate(t, tripSchema, text)
		if final == nil || final.OutputText() != text {
			t.Errorf("streamed text %q, final response %+v", text, final)
		}
	})

	t.Run("anthropic output_config.format", func(t *testing.T) {
		ac := anthropicClient(g, masterKey)
		p := anthropic.MessageNewParams{
			Model:        "mock-chat",
			MaxTokens:    1024,
			Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Plan a trip to Rome"))},
			OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: schemaMap(t, tripSchema)}},
		}
		m, err := ac.Messages.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Content) != 1 || m.Content[0].Type != "text" {
			t.Fatalf("content %+v", m.Content)
		}
		mustValidate(t, tripSchema, m.Content[0].Text)
		sm, _ := accumulateMessage(t, ac.Messages.NewStreaming(ctx, p))
		if len(sm.Content) != 1 || sm.Content[0].Text != m.Content[0].Text {
			t.Errorf("streamed content %+v", sm.Content)
		}
	})
}

// TestMockParallelToolCalls: through the gateway, "mock:call:a,b" gets
// parallel calls of a and b with arguments valid against their schemas,
// the same whole or streamed, on Chat Completions, Responses and
// Anthropic Messages.
func TestMockParallelToolCalls(t *testing.T) {
	g := startMockGateway(t)
	client := openaiClient(g, masterKey)
	ctx := context.Background()
	weatherParams := `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`
	search := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "search", Parameters: schemaMap(t, searchParams)})
	params := openai.ChatCompletionNewParams{
		Model:    "mock-chat",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Paris mock:call:get_weather,search")},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool, search},
	}
	check := func(t *testing.T, names, args, ids []string) {
		t.Helper()
		if len(names) != 2 || names[0] != "get_weather" || names[1] != "search" {
			t.Fatalf("calls %v", names)
		}
		mustValidate(t, weatherParams, args[0])
		mustValidate(t, searchParams, args[1])
		if ids[0] == "" || ids[0] == ids[1] {
			t.Errorf("ids %v", ids)
		}
	}

	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("finish_reason %q", resp.Choices[0].FinishReason)
	}
	var names, args, ids []string
	for _, c := range resp.Choices[0].Message.ToolCalls {
		names, args, ids = append(names, c.Function.Name), append(args, c.Function.Arguments), append(ids, c.ID)
	}
	check(t, names, args, ids)

	t.Run("chat streamed", func(t *testing.T) {
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		var acc openai.ChatCompletionAccumulator
		var finished []openai.FinishedChatCompletionToolCall
		for stream.Next() {
			acc.AddChunk(stream.Current())
			if tc, ok := acc.JustFinishedToolCall(); ok {
				finished = append(finished, tc)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		var names, sargs, ids []string
		for _, c := range finished {
			names, sargs, ids = append(names, c.Name), append(sargs, c.Arguments), append(ids, c.ID)
		}
		check(t, names, sargs, ids)
		if sargs[0] != args[0] || sargs[1] != args[1] {
			t.Errorf("streamed arguments %v, unstreamed %v", sargs, args)
		}
		if acc.Choices[0].FinishReason != "tool_calls" {
			t.Errorf("streamed finish_reason %q", acc.Choices[0].FinishReason)
		}
	})

	t.Run("responses function_call items", func(t *testing.T) {
		p := responses.ResponseNewParams{
			Model: "mock-chat",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Paris mock:call:get_weather,search")},
			Tools: []responses.ToolUnionParam{responsesWeatherTool, {OfFunction: &responses.FunctionToolParam{
				Name: "search", Parameters: schemaMap(t, searchParams), Strict: openai.Bool(true)}}},
		}
		r, err := client.Responses.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var names, args, ids []string
		for _, it := range r.Output {
			if it.Type == "function_call" {
				names, args, ids = append(names, it.Name), append(args, it.Arguments.OfString), append(ids, it.CallID)
			}
		}
		check(t, names, args, ids)
	})

	t.Run("anthropic tool_use blocks", func(t *testing.T) {
		ac := anthropicClient(g, masterKey)
		p := anthropic.MessageNewParams{
			Model:     "mock-chat",
			MaxTokens: 1024,
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Paris mock:call:get_weather,search"))},
			Tools: []anthropic.ToolUnionParam{anthropicWeatherTool, {OfTool: &anthropic.ToolParam{Name: "search", InputSchema: anthropic.ToolInputSchemaParam{
				Properties: schemaMap(t, searchParams)["properties"], Required: []string{"query", "limit", "sources"}}}}},
		}
		for _, streamed := range []bool{false, true} {
			var m anthropic.Message
			if streamed {
				m, _ = accumulateMessage(t, ac.Messages.NewStreaming(ctx, p))
			} else {
				r, err := ac.Messages.New(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				m = *r
			}
			if m.StopReason != anthropic.StopReasonToolUse {
				t.Errorf("streamed %v: stop_reason %q", streamed, m.StopReason)
			}
			var names, args, ids []string
			for _, b := range m.Content {
				if b.Type == "tool_use" {
					names, args, ids = append(names, b.Name), append(args, string(b.Input)), append(ids, b.ID)
				}
			}
			check(t, names, args, ids)
		}
	})
}
