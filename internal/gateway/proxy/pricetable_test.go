package proxy

import (
	"net/http"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// The price rules, proven against figures computed by hand from the
// catalog's list prices (per million tokens unless noted), from usage as
// the providers report it. Each figure is exact to the billionth
// (catalog.NanosOf).

// priceCase is one request: the model's catalog entry, the usage as the
// provider reports it, and its hand-computed input and output costs.
type priceCase struct {
	name, typ, model string
	c                catalog.Consumption
	in, out          float64
}

// checkPrice compares b, the catalog's price of c, with c's figures.
func checkPrice(t *testing.T, c priceCase, b catalog.Breakdown, ok bool) {
	t.Helper()
	if !ok || b.Source != catalog.CostSourceCatalog || b.Currency != "USD" {
		t.Fatalf("%s: priced %v from %q in %q", c.name, ok, b.Source, b.Currency)
	}
	got := [3]catalog.Nanos{catalog.NanosOf(b.Input), catalog.NanosOf(b.Output), catalog.NanosOf(b.Total)}
	want := [3]catalog.Nanos{catalog.NanosOf(c.in), catalog.NanosOf(c.out), catalog.NanosOf(c.in + c.out)}
	if got != want {
		t.Errorf("%s: input, output, total %v nano-USD, want %v", c.name, got, want)
	}
}

// chatUsage reads an OpenAI chat usage object.
func chatUsage(t *testing.T, js string) catalog.Usage {
	t.Helper()
	u, ok := bodyUsage(providers.EndpointChat, []byte(`{"usage":`+js+`}`))
	if !ok {
		t.Fatalf("no usage in %s", js)
	}
	return u
}

func TestPriceRules(t *testing.T) {
	messages := func(js string) catalog.Usage {
		u, ok := bodyUsage(providers.EndpointMessages, []byte(`{"usage":`+js+`}`))
		if !ok {
			t.Fatalf("no usage in %s", js)
		}
		return u
	}
	responses := func(js string) catalog.Usage {
		u, ok := bodyUsage(providers.EndpointResponses, []byte(`{"usage":`+js+`}`))
		if !ok {
			t.Fatalf("no usage in %s", js)
		}
		return u
	}
	seconds := func(body string) float64 {
		s, ok := transcriptionSeconds([]byte(body))
		if !ok {
			t.Fatalf("no duration in %s", body)
		}
		return s
	}
	gpt4oCached := chatUsage(t, `{"prompt_tokens":10000,"completion_tokens":500,"total_tokens":10500,"prompt_tokens_details":{"cached_tokens":4000}}`)
	for _, c := range []priceCase{
		// gpt-4o: input 2.50, cached 1.25, output 10. The 4,000 cached
		// tokens are inside the 10,000 prompt tokens: 6,000 × 2.50 +
		// 4,000 × 1.25 = 0.015 + 0.005; 500 × 10 = 0.005.
		{"openai cached input", "openai", "gpt-4o", catalog.Consumption{Usage: gpt4oCached}, 0.02, 0.005},
		// Responses counts the same way: o4-mini, input 1.10, cached
		// 0.275, output 4.40: 1,000 × 1.10 + 1,000 × 0.275; 1,000 × 4.40
		// (the 800 reasoning tokens are inside the 1,000 output tokens).
		{"responses cached input and reasoning", "openai", "o4-mini", catalog.Consumption{Usage: responses(
			`{"input_tokens":2000,"input_tokens_details":{"cached_tokens":1000},"output_tokens":1000,"output_tokens_details":{"reasoning_tokens":800},"total_tokens":3000}`)},
			0.001375, 0.0044},
		// o3: input 2, output 8. The 2,500 reasoning tokens are inside
		// the 3,000 completion tokens, billed once at the output price:
		// 1,000 × 2; 3,000 × 8.
		{"openai reasoning inside completion", "openai", "o3", catalog.Consumption{Usage: chatUsage(t,
			`{"prompt_tokens":1000,"completion_tokens":3000,"total_tokens":4000,"completion_tokens_details":{"reasoning_tokens":2500}}`)},
			0.002, 0.024},
		// claude-sonnet-4-5: input 3, cache write 3.75, cache read 0.30,
		// output 15. Anthropic's input_tokens leaves out the cache
		// writes and reads: 1,000 × 3 + 2,000 × 3.75 + 10,000 × 0.30 =
		// 0.003 + 0.0075 + 0.003; 500 × 15 = 0.0075.
		{"anthropic cache writes and reads", "anthropic", "claude-sonnet-4-5", catalog.Consumption{Usage: messages(
			`{"input_tokens":1000,"cache_creation_input_tokens":2000,"cache_read_input_tokens":10000,"output_tokens":500}`)},
			0.0135, 0.0075},
		// gemini-2.5-pro: up to 200,000 prompt tokens 1.25 / 10, above
		// 2.50 / 15, for every token of the request.
		{"tier: at the bound", "gemini", "gemini-2.5-pro", catalog.Consumption{Usage: chatUsage(t,
			`{"prompt_tokens":200000,"completion_tokens":1000}`)}, 0.25, 0.01},
		{"tier: one token above", "gemini", "gemini-2.5-pro", catalog.Consumption{Usage: chatUsage(t,
			`{"prompt_tokens":200001,"completion_tokens":1000}`)}, 0.5000025, 0.015},
		// claude-sonnet-4-5 above 200,000 prompt tokens (cache reads
		// count): input 6, output 22.50, the cache read price doubled
		// with the input price: 150,000 × 6 + 100,000 × 0.60; 1,000 ×
		// 22.50.
		{"tier: long prompt with cache reads", "anthropic", "claude-sonnet-4-5", catalog.Consumption{Usage: messages(
			`{"input_tokens":150000,"cache_read_input_tokens":100000,"output_tokens":1000}`)}, 0.96, 0.0225},
		// grok-4: up to 128,000 prompt tokens 3 / 15, above 6 / 30.
		{"tier: xai", "xai", "grok-4", catalog.Consumption{Usage: chatUsage(t,
			`{"prompt_tokens":128001,"completion_tokens":100}`)}, 0.768006, 0.003},
		// gpt-4o batch: input 1.25, output 5, the cached price halved
		// with the input price: 6,000 × 1.25 + 4,000 × 0.625; 500 × 5.
		{"batch line", "openai", "gpt-4o", catalog.Consumption{Usage: gpt4oCached, Batch: true}, 0.01, 0.0025},
		// claude-haiku-4-5 batch: input 0.50, output 2.50, cache write
		// 1.25 × 0.5: 1,000 × 0.50 + 1,000 × 0.625; 200 × 2.50.
		{"batch line with cache writes", "anthropic", "claude-haiku-4-5", catalog.Consumption{Usage: messages(
			`{"input_tokens":1000,"cache_creation_input_tokens":1000,"output_tokens":200}`), Batch: true}, 0.001125, 0.0005},
		// whisper-1: 0.0001 per second: 61.5 s.
		{"audio per second", "openai", "whisper-1", catalog.Consumption{InputSeconds: seconds(
			`{"text":"hi","usage":{"type":"duration","seconds":61.5}}`)}, 0.00615, 0},
		// gpt-4o-mini-transcribe: 0.00005 per second, from a verbose
		// answer's duration: 30 s.
		{"audio per second, verbose duration", "openai", "gpt-4o-mini-transcribe", catalog.Consumption{InputSeconds: seconds(
			`{"text":"hi","duration":30}`)}, 0.0015, 0},
		// tts-1: 0.000015 per character: "Héllo, wörld!" is 13.
		{"speech per character", "openai", "tts-1", catalog.Consumption{Characters: speechCharacters([]byte(`"Héllo, wörld!"`))}, 0.000195, 0},
		// eleven_multilingual_v2: 0.0001 per character: 1,000.
		{"speech per character, elevenlabs", "elevenlabs", "eleven_multilingual_v2", catalog.Consumption{Characters: 1000}, 0.1, 0},
	} {
		b, ok := catalog.PriceConsumption(c.typ, c.model, c.c)
		checkPrice(t, c, b, ok)
	}
}

// TestStreamUsageInTheLastEventIsPriced: a stream whose usage arrives
// in its last event is priced from it, natively and translated.
func TestStreamUsageInTheLastEventIsPriced(t *testing.T) {
	chatStream := "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":10000,\"completion_tokens\":500,\"total_tokens\":10500,\"prompt_tokens_details\":{\"cached_tokens\":4000}}}\n\n" +
		"data: [DONE]\n\n"
	messagesStream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":1000,\"cache_creation_input_tokens\":2000,\"cache_read_input_tokens\":10000,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":500}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	responsesStream := "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"usage\":null}}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"usage\":{\"input_tokens\":2000,\"input_tokens_details\":{\"cached_tokens\":1000},\"output_tokens\":1000,\"output_tokens_details\":{\"reasoning_tokens\":800},\"total_tokens\":3000}}}\n\n"
	chat := []providers.Endpoint{providers.EndpointChat}
	msgs := []providers.Endpoint{providers.EndpointMessages}
	for _, c := range []struct {
		priceCase
		path, body, stream string
		eps                []providers.Endpoint
		shape              providers.Shape
	}{
		{priceCase{name: "chat", typ: "openai", model: "gpt-4o", in: 0.02, out: 0.005},
			"/v1/chat/completions", `{"model":"up/gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, chatStream, chat, providers.ShapeChat},
		{priceCase{name: "chat as messages", typ: "openai", model: "gpt-4o", in: 0.02, out: 0.005},
			"/v1/messages", `{"model":"up/gpt-4o","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, chatStream, chat, providers.ShapeChat},
		{priceCase{name: "messages", typ: "anthropic", model: "claude-sonnet-4-5", in: 0.0135, out: 0.0075},
			"/v1/messages", `{"model":"up/claude-sonnet-4-5","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, messagesStream, msgs, providers.ShapeMessages},
		{priceCase{name: "messages as chat", typ: "anthropic", model: "claude-sonnet-4-5", in: 0.0135, out: 0.0075},
			"/v1/chat/completions", `{"model":"up/claude-sonnet-4-5","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, messagesStream, msgs, providers.ShapeMessages},
		{priceCase{name: "responses", typ: "openai", model: "o4-mini", in: 0.001375, out: 0.0044},
			"/v1/responses", `{"model":"up/o4-mini","stream":true,"input":"hi"}`, responsesStream, []providers.Endpoint{providers.EndpointResponses}, providers.ShapeChat},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := costStub{stubProvider: &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
				return sseResponse(c.stream)
			}}, typ: c.typ, eps: c.eps, shape: c.shape}
			rec, info := serve(newService(t, p), "POST", c.path, c.body)
			if rec.Code != 200 || info.ResolvedModel != c.model {
				t.Fatalf("%d, model %q: %s", rec.Code, info.ResolvedModel, rec.Body.String())
			}
			b, ok := info.Cost()
			checkPrice(t, c.priceCase, b, ok)
		})
	}
}
