package proxy

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// costStub is a stubProvider of another provider type and API shape,
// serving eps.
type costStub struct {
	*stubProvider
	typ   string
	eps   []providers.Endpoint
	shape providers.Shape // the zero value is ShapeChat
}

func (p costStub) Type() string                        { return p.typ }
func (p costStub) Shape() providers.Shape              { return p.shape }
func (p costStub) Supports(ep providers.Endpoint) bool { return slices.Contains(p.eps, ep) }

func TestReportedCost(t *testing.T) {
	for _, c := range []struct {
		typ, usage string
		want       float64
		ok         bool
	}{
		{"openrouter", `{"prompt_tokens":194,"cost":0.95}`, 0.95, true},
		{"openrouter", `{"prompt_tokens":194,"cost":0}`, 0, true},
		{"openrouter", `{"prompt_tokens":194}`, 0, false},
		{"openrouter", `{"cost":"0.95"}`, 0, false},
		{"openrouter", `{"cost":-1}`, 0, false},
		{"openrouter", `{"cost":2e6}`, 0, false},
		{"openrouter", `{"cost_in_usd_ticks":37756000}`, 0, false},
		// xAI's example: 37,756,000 ticks is $0.0037756.
		{"xai", `{"cost_in_usd_ticks":37756000}`, 0.0037756, true},
		{"xai", `{"cost":0.95}`, 0, false},
		{"openai", `{"cost":0.95,"cost_in_usd_ticks":1}`, 0, false},
		{"openrouter", `null`, 0, false},
	} {
		got := reportedCost(c.typ, gjson.Parse(c.usage))
		if got.OK != c.ok || got.USD != c.want {
			t.Errorf("%s %s: %+v, want %v %v", c.typ, c.usage, got, c.want, c.ok)
		}
	}
}

// costStream is an OpenRouter chat stream whose usage, with the price,
// arrives in the last chunk.
var costStream = strings.Join([]string{
	"data: {\"id\":\"gen-1\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n",
	"data: {\"id\":\"gen-1\",\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
	"data: {\"id\":\"gen-1\",\"model\":\"m1\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11,\"cost\":0.000123,\"cost_details\":{\"upstream_inference_cost\":0.000123}}}\n\n",
	"data: [DONE]\n\n",
}, "")

// TestProviderCostIsTheRequestsCost: the price the provider reports, in
// a whole answer or in a stream's last chunk, natively or translated to
// another API shape, is the request's cost with source provider; a
// provider type that reports no price leaves the catalog's.
func TestProviderCostIsTheRequestsCost(t *testing.T) {
	const whole = `{"id":"gen-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11,"cost":0.000123}}`
	const xaiWhole = `{"id":"x-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11,"cost_in_usd_ticks":1230000}}`
	chat := []providers.Endpoint{providers.EndpointChat}
	for _, c := range []struct {
		name, typ, path, body, answer string
		stream                        bool
		eps                           []providers.Endpoint
		want                          float64 // 0: no provider price
	}{
		{"openrouter chat", "openrouter", "/v1/chat/completions", `{"model":"m1","messages":[]}`, whole, false, chat, 0.000123},
		{"xai chat", "xai", "/v1/chat/completions", `{"model":"m1","messages":[]}`, xaiWhole, false, chat, 0.000123},
		{"openrouter chat stream", "openrouter", "/v1/chat/completions", `{"model":"m1","stream":true,"messages":[]}`, costStream, true, chat, 0.000123},
		{"openrouter messages, translated", "openrouter", "/v1/messages", `{"model":"m1","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`, whole, false, chat, 0.000123},
		{"openrouter messages stream, translated", "openrouter", "/v1/messages", `{"model":"m1","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, costStream, true, chat, 0.000123},
		{"openrouter responses stream, translated", "openrouter", "/v1/responses", `{"model":"m1","stream":true,"input":"hi"}`, costStream, true, chat, 0.000123},
		{"xai responses stream", "xai", "/v1/responses", `{"model":"m1","stream":true,"input":"hi"}`,
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"usage\":null}}\n\n" +
				"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"usage\":{\"input_tokens\":9,\"output_tokens\":2,\"total_tokens\":11,\"cost_in_usd_ticks\":1230000}}}\n\n",
			true, []providers.Endpoint{providers.EndpointResponses}, 0.000123},
		{"openai reports none", "openai", "/v1/chat/completions", `{"model":"m1","messages":[]}`, whole, false, chat, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := costStub{stubProvider: &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response {
				if c.stream {
					return sseResponse(c.answer)
				}
				return jsonResponse(200, c.answer)
			}}, typ: c.typ, eps: c.eps}
			rec, info := serve(newService(t, p), "POST", c.path, c.body)
			if rec.Code != 200 {
				t.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
			if u, ok := info.Usage(); !ok || u.InputTokens != 9 {
				t.Fatalf("usage %+v %v", u, ok)
			}
			b, ok := info.Cost()
			if c.want == 0 {
				// m1 is not in the catalog: no price at all.
				if ok {
					t.Fatalf("cost %+v without a provider price", b)
				}
				return
			}
			if !ok || b.Total != c.want || b.Source != catalog.CostSourceProvider || !b.Unsplit || b.Currency != "USD" {
				t.Fatalf("cost %+v (%v), want %v from the provider", b, ok, c.want)
			}
		})
	}
}
