package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// TestAPISDKChatReplay sends chat completions through the official SDK to
// each replayed family and compares what the SDK parsed with the recorded
// response.
func TestAPISDKChatReplay(t *testing.T) {
	g, ups := startReplayGateway(t)
	client := openaiClient(g, masterKey)

	type fixtureCase struct {
		name   string
		params func(p *openai.ChatCompletionNewParams)
		// sent checks fields of the body the upstream received.
		sent func(t *testing.T, body map[string]any)
	}
	fixtureCases := []fixtureCase{
		{name: "chat_completion.json"},
		{
			name: "chat_with_tools.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")}
				p.Tools = []openai.ChatCompletionToolUnionParam{weatherTool}
			},
			sent: func(t *testing.T, body map[string]any) {
				tools, _ := body["tools"].([]any)
				if len(tools) != 1 || !strings.Contains(fmt.Sprint(tools[0]), "get_weather") {
					t.Errorf("upstream tools = %v", body["tools"])
				}
			},
		},
		{
			name: "chat_with_params.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Temperature = openai.Float(0.25)
				p.TopP = openai.Float(0.5)
				p.MaxTokens = openai.Int(50)
				p.Seed = openai.Int(42)
			},
			sent: func(t *testing.T, body map[string]any) {
				if body["temperature"] != 0.25 || body["top_p"] != 0.5 || body["max_tokens"] != 50.0 || body["seed"] != 42.0 {
					t.Errorf("sampling parameters not forwarded: temperature=%v top_p=%v max_tokens=%v seed=%v",
						body["temperature"], body["top_p"], body["max_tokens"], body["seed"])
				}
			},
		},
		{
			name: "chat_multi_turn.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{
					openai.SystemMessage("You are terse."),
					openai.UserMessage("My name is Ada."),
					openai.AssistantMessage("Hello Ada."),
					openai.UserMessage("What is my name?"),
				}
			},
			sent: func(t *testing.T, body map[string]any) {
				if msgs, _ := body["messages"].([]any); len(msgs) != 4 {
					t.Errorf("upstream got %d messages, want 4", len(msgs))
				}
			},
		},
		{
			name: "chat_json_mode.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
			},
			sent: func(t *testing.T, body map[string]any) {
				if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_object" {
					t.Errorf("upstream response_format = %v", body["response_format"])
				}
			},
		},
		{
			name: "chat_multimodal.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart("Which colors are in this image?"),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="}),
				})}
			},
			sent: func(t *testing.T, body map[string]any) {
				if !strings.Contains(fmt.Sprint(body["messages"]), "data:image/png;base64,iVBORw0KGgo=") {
					t.Errorf("image part not forwarded: %v", body["messages"])
				}
			},
		},
		{
			name: "chat_completion_reasoning.json",
			params: func(p *openai.ChatCompletionNewParams) {
				p.ReasoningEffort = shared.ReasoningEffortLow
			},
			sent: func(t *testing.T, body map[string]any) {
				if body["reasoning_effort"] != "low" {
					t.Errorf("upstream reasoning_effort = %v", body["reasoning_effort"])
				}
			},
		},
	}

	ran := 0
	for _, f := range replayFamilies {
		u := ups[f.family]
		for _, fc := range fixtureCases {
			if !fixtures.Exists(f.family, fc.name) {
				continue
			}
			addressings := []string{f.family + "/" + f.model}
			if fc.name == "chat_completion.json" {
				addressings = append(addressings, f.model) // bare: first provider listing it
			}
			for _, model := range addressings {
				ran++
				t.Run(f.family+"/"+fc.name+"/"+model, func(t *testing.T) {
					u.Reset()
					u.Respond(fc.name)
					want := chatFixture(t, f.family, fc.name)
					p := openai.ChatCompletionNewParams{
						Model:    model,
						Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello world")},
					}
					if fc.params != nil {
						fc.params(&p)
					}
					got, err := client.Chat.Completions.New(context.Background(), p)
					if err != nil {
						t.Fatalf("SDK error: %v", err)
					}
					if len(got.Choices) != len(want.Choices) {
						t.Fatalf("SDK saw %d choices, fixture has %d", len(got.Choices), len(want.Choices))
					}
					wc, gc := want.Choices[0], got.Choices[0]
					wantContent := ""
					if wc.Message.Content != nil {
						wantContent = *wc.Message.Content
					}
					if gc.Message.Content != wantContent {
						t.Errorf("content = %q, fixture %q", gc.Message.Content, wantContent)
					}
					if gc.FinishReason != wc.FinishReason {
						t.Errorf("finish_reason = %q, fixture %q", gc.FinishReason, wc.FinishReason)
					}
					if got.Usage.PromptTokens != want.Usage.Prompt || got.Usage.CompletionTokens != want.Usage.Completion ||
						got.Usage.TotalTokens != want.Usage.Total {
						t.Errorf("usage = %d/%d/%d, fixture %d/%d/%d", got.Usage.PromptTokens, got.Usage.CompletionTokens,
							got.Usage.TotalTokens, want.Usage.Prompt, want.Usage.Completion, want.Usage.Total)
					}
					if len(gc.Message.ToolCalls) != len(wc.Message.ToolCalls) {
						t.Fatalf("SDK saw %d tool calls, fixture has %d", len(gc.Message.ToolCalls), len(wc.Message.ToolCalls))
					}
					for i, wt := range wc.Message.ToolCalls {
						gt := gc.Message.ToolCalls[i]
						if gt.ID != wt.ID || gt.Function.Name != wt.Function.Name || gt.Function.Arguments != wt.Function.Arguments {
							t.Errorf("tool call %d = %s %s(%s), fixture %s %s(%s)", i, gt.ID, gt.Function.Name,
								gt.Function.Arguments, wt.ID, wt.Function.Name, wt.Function.Arguments)
						}
					}
					if fc.name == "chat_with_tools.json" && (len(gc.Message.ToolCalls) == 0 || gc.Message.ToolCalls[0].Function.Name != "get_weather") {
						t.Errorf("no get_weather tool call seen by the SDK")
					}
					chats := u.Requests("/v1/chat/completions")
					if len(chats) != 1 {
						t.Fatalf("upstream got %d chat requests, want 1", len(chats))
					}
					body := checkUpstreamChat(t, f, chats[0])
					if _, ok := body["stream_options"]; ok {
						t.Errorf("non-stream request gained stream_options upstream: %v", body["stream_options"])
					}
					if fc.sent != nil {
						fc.sent(t, body)
					}
				})
			}
		}
	}
	if ran < 12 {
		t.Fatalf("only %d fixture cases ran; fixtures missing?", ran)
	}
}

// TestAPISDKStreamReplay streams each family's recorded stream through the
// gateway to the SDK accumulator and compares with what the fixture itself
// contains.
func TestAPISDKStreamReplay(t *testing.T) {
	g, ups := startReplayGateway(t)
	client := openaiClient(g, masterKey)
	for _, f := range replayFamilies {
		t.Run(f.family, func(t *testing.T) {
			u := ups[f.family]
			u.Reset()
			raw := fixtures.Must(t, f.family, "chat_completion_stream.txt")
			want := summarizeStream(t, raw)
			if want.Content == "" {
				t.Fatalf("fixture stream has no content")
			}
			stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
				Model:    f.family + "/" + f.model,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello world")},
			})
			var acc openai.ChatCompletionAccumulator
			chunks := 0
			for stream.Next() {
				chunks++
				if !acc.AddChunk(stream.Current()) {
					t.Fatalf("accumulator refused chunk %d", chunks)
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream error: %v", err)
			}
			_ = stream.Close()
			if n := len(eventData(raw)); chunks != n {
				t.Errorf("SDK saw %d chunks, fixture has %d", chunks, n)
			}
			if len(acc.Choices) == 0 {
				t.Fatal("accumulator has no choices")
			}
			if acc.Choices[0].Message.Content != want.Content {
				t.Errorf("accumulated content = %q, fixture %q", acc.Choices[0].Message.Content, want.Content)
			}
			if acc.Usage.PromptTokens != want.Prompt || acc.Usage.CompletionTokens != want.Completion || acc.Usage.TotalTokens != want.Total {
				t.Errorf("accumulated usage = %d/%d/%d, fixture %d/%d/%d", acc.Usage.PromptTokens, acc.Usage.CompletionTokens,
					acc.Usage.TotalTokens, want.Prompt, want.Completion, want.Total)
			}
			if f.family == "groq" && want.Total == 0 {
				t.Errorf("groq fixture should carry usage in its final chunk")
			}
			body := checkUpstreamChat(t, f, u.LastChat(t))
			if body["stream"] != true {
				t.Errorf("upstream stream = %v", body["stream"])
			}
			so, _ := body["stream_options"].(map[string]any)
			if so["include_usage"] != true {
				t.Errorf("upstream stream_options = %v, want include_usage:true added by the gateway", body["stream_options"])
			}
		})
	}
}

// TestAPIStreamPassthroughBytes checks with plain HTTP that a replayed
// stream reaches the client byte for byte, as an event stream.
func TestAPIStreamPassthroughBytes(t *testing.T) {
	g, _ := startReplayGateway(t)
	for _, f := range replayFamilies {
		t.Run(f.family, func(t *testing.T) {
			res := request(t, "POST", g.URL+"/v1/chat/completions",
				`{"model":"`+f.model+`","stream":true,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
			expectRelayedStream(t, res, f.family, "chat_completion_stream.txt")
			if res.Header.Get("X-Modelgate-Provider") != f.family {
				t.Errorf("X-Modelgate-Provider = %q", res.Header.Get("X-Modelgate-Provider"))
			}
		})
	}
}

// TestAPISDKModelsList lists models through the SDK: the union of every
// provider's listing, gemini ids without "models/", each entry owned by
// its provider instance and routing back to it.
func TestAPISDKModelsList(t *testing.T) {
	g, ups := startReplayGateway(t)
	client := openaiClient(g, masterKey)

	// The listings are fetched in the background: wait for the union.
	want := map[string][]string{}
	total := 0
	for _, f := range replayFamilies {
		var listing struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(fixtures.Must(t, f.family, "models.json"), &listing); err != nil {
			t.Fatal(err)
		}
		for _, m := range listing.Data {
			id := m.ID
			if f.family == "gemini" {
				id = strings.TrimPrefix(id, "models/")
			}
			want[f.family] = append(want[f.family], id)
		}
		total += len(listing.Data)
	}
	var got []openai.Model
	poll(t, 10*time.Second, fmt.Sprintf("the SDK lists the %d models", total), func() bool {
		page, err := client.Models.List(context.Background())
		if err != nil {
			t.Fatalf("SDK Models.List: %v", err)
		}
		got = page.Data
		return len(got) >= total
	})
	if len(got) != total {
		t.Fatalf("SDK listed %d models, the three listings hold %d", len(got), total)
	}
	byID := map[string]openai.Model{}
	for _, m := range got {
		if _, dup := byID[m.ID]; dup {
			t.Errorf("model id %q listed twice", m.ID)
		}
		byID[m.ID] = m
		if strings.HasPrefix(m.ID, "models/") || strings.Contains(m.ID, "/models/") {
			t.Errorf("gemini id kept its models/ prefix: %q", m.ID)
		}
		if m.Object != "model" {
			t.Errorf("%s: object = %q", m.ID, m.Object)
		}
	}
	for fam, ids := range want {
		for _, id := range ids {
			m, ok := byID[id]
			if !ok || m.OwnedBy != fam {
				m, ok = byID[fam+"/"+id]
			}
			if !ok || m.OwnedBy != fam {
				t.Errorf("%s model %q missing from the listing (neither %q nor %q owned by %s)", fam, id, id, fam+"/"+id, fam)
			}
		}
	}
	// Spot checks: bare ids for the first provider, gemini without prefix,
	// groq's own slashed ids bare (they are not read as provider prefixes
	// unless that provider lists the rest).
	for id, owner := range map[string]string{
		"gpt-4o-mini":             "openai",
		"llama-3.3-70b-versatile": "groq",
		"gemini-2.5-flash":        "gemini",
		"openai/gpt-oss-20b":      "groq",
		"groq/compound":           "groq",
	} {
		if m, ok := byID[id]; !ok || m.OwnedBy != owner {
			t.Errorf("listing entry %q owned by %q: got %+v (present %v)", id, owner, m.OwnedBy, ok)
		}
	}
	if created := byID["gpt-4o-mini"].Created; created != 1721172741 {
		t.Errorf("gpt-4o-mini created = %d, want the upstream's 1721172741", created)
	}

	// The raw shape: {"object":"list","data":[{id,object,created,owned_by}]}.
	res := request(t, "GET", g.URL+"/v1/models", "", bearer(masterKey)...)
	var shape struct {
		Object string                       `json:"object"`
		Data   []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &shape); res.Status != 200 || err != nil || shape.Object != "list" {
		t.Fatalf("GET /v1/models: %d %v %.200s", res.Status, err, res.Body)
	}
	for _, m := range shape.Data {
		_, hasMeta := m["metadata"]
		if len(m) != 4 && !(len(m) == 5 && hasMeta) || m["id"] == nil || string(m["object"]) != `"model"` || m["created"] == nil || m["owned_by"] == nil {
			t.Fatalf("model entry shape: %v", m)
		}
	}

	// The listing requests carried each provider's own key.
	for _, f := range replayFamilies {
		rs := ups[f.family].Requests("/v1/models")
		if len(rs) == 0 {
			t.Errorf("%s: no listing request", f.family)
			continue
		}
		if got := rs[0].Header.Get("Authorization"); got != "Bearer "+f.key {
			t.Errorf("%s listing Authorization = %q", f.family, got)
		}
	}

	// Listed ids route back to their owner, with the upstream seeing the
	// id as its own listing names it.
	for _, c := range []struct{ selector, family, upstreamModel string }{
		{"openai/gpt-oss-20b", "groq", "openai/gpt-oss-20b"},
		{"groq/compound", "groq", "groq/compound"},
		{"groq/openai/gpt-oss-20b", "groq", "openai/gpt-oss-20b"},
		{"groq/groq/compound", "groq", "groq/compound"},
		{"gemini-2.5-pro", "gemini", "gemini-2.5-pro"},
		{"moonshotai/kimi-k2-instruct", "groq", "moonshotai/kimi-k2-instruct"},
	} {
		ups[c.family].Reset()
		if _, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    c.selector,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		}); err != nil {
			t.Errorf("%s: %v", c.selector, err)
			continue
		}
		if m := ups[c.family].LastChat(t).JSON(t)["model"]; m != c.upstreamModel {
			t.Errorf("%s: upstream %s saw model %v, want %q", c.selector, c.family, m, c.upstreamModel)
		}
	}

}

// TestAPIDuplicateModelAcrossProviders: a model two providers serve is
// listed bare for the first and as name/model for the second, and each
// form routes to its provider.
func TestAPIDuplicateModelAcrossProviders(t *testing.T) {
	clearEnv(t)
	a, b := newReplay(t, "openai"), newReplay(t, "openai")
	g := startGateway(t, providerBlock("first", "openai", "key-first", a.BaseURL())+
		providerBlock("second", "openai", "key-second", b.BaseURL()))

	var listing []listedModel
	deadline := time.Now().Add(10 * time.Second)
	for {
		listing = listModels(t, g, "")
		if len(listing) >= 2*119 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	owned := owners(listing)
	if owned["gpt-4o-mini"] != "first" || owned["second/gpt-4o-mini"] != "second" {
		t.Fatalf("gpt-4o-mini owners: bare=%q second/=%q", owned["gpt-4o-mini"], owned["second/gpt-4o-mini"])
	}
	if _, ok := owned["first/gpt-4o-mini"]; ok {
		t.Errorf("first provider's model listed with prefix too")
	}
	client := openaiClient(g, "unused")
	for _, c := range []struct {
		model string
		up    *replay
		other *replay
		key   string
	}{
		{"gpt-4o-mini", a, b, "key-first"},
		{"first/gpt-4o-mini", a, b, "key-first"},
		{"second/gpt-4o-mini", b, a, "key-second"},
	} {
		a.Reset()
		b.Reset()
		if _, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: c.model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		}); err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		r := c.up.LastChat(t)
		if r.JSON(t)["model"] != "gpt-4o-mini" || r.Header.Get("Authorization") != "Bearer "+c.key {
			t.Errorf("%s: upstream saw model %v auth %q", c.model, r.JSON(t)["model"], r.Header.Get("Authorization"))
		}
		if n := len(c.other.Requests("/v1/chat/completions")); n != 0 {
			t.Errorf("%s: the other provider got %d chat requests", c.model, n)
		}
	}
}

// TestAPIModelsCarryCatalogMetadata: known models carry the catalog's
// metadata in /v1/models; unknown ones have none.
func TestAPIModelsCarryCatalogMetadata(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, providerBlock("demo", "mock", "", "", "models mock-chat gpt-4o-mini", "models_mode allowlist"))
	res := request(t, "GET", g.URL+"/v1/models", "")
	var out struct {
		Data []struct {
			ID       string                     `json:"id"`
			Metadata map[string]json.RawMessage `json:"metadata"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &out); res.Status != 200 || err != nil {
		t.Fatalf("%d %v %s", res.Status, err, res.Body)
	}
	got := map[string]map[string]json.RawMessage{}
	for _, m := range out.Data {
		got[m.ID] = m.Metadata
	}
	if md := got["gpt-4o-mini"]; md == nil || md["pricing"] == nil || md["context_window"] == nil || md["display_name"] == nil {
		t.Fatalf("gpt-4o-mini metadata: %v", md)
	}
	// The mock's own models carry their categories, and no price.
	if md, ok := got["mock-chat"]; !ok || string(md["categories"]) != `["text_generation"]` || md["pricing"] != nil {
		t.Fatalf("mock-chat metadata: %v (listed %v)", md, ok)
	}
}
