package proxy

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// faultLog collects the UsageRejected calls of a service.
type faultLog []string

func (f *faultLog) add(provider string, fault catalog.UsageFault) {
	*f = append(*f, provider+":"+string(fault))
}

// TestUpstreamUsageIsChecked: the usage an upstream reports is taken as
// catalog.CheckUsage takes it on every path into the record (a whole answer,
// a stream's usage chunks): a negative count is 0, an implausible one
// leaves the answer without usage, and each fault is counted once per
// answer.
func TestUpstreamUsageIsChecked(t *testing.T) {
	const maxInt = "9223372036854775807"
	chat := func(usage string) string {
		return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},` +
			`"finish_reason":"stop"}],"usage":` + usage + `}`
	}
	cases := []struct {
		name   string
		stream bool
		answer string
		want   catalog.Usage
		has    bool
		faults []string
	}{
		{name: "negative", answer: chat(`{"prompt_tokens":-5,"completion_tokens":2,"total_tokens":-3}`),
			want: catalog.Usage{OutputTokens: 2}, has: true, faults: []string{"up:negative"}},
		{name: "max int", answer: chat(`{"prompt_tokens":` + maxInt + `,"completion_tokens":` + maxInt + `}`),
			faults: []string{"up:too_large"}},
		{name: "just above the bound", answer: chat(`{"prompt_tokens":1000000001,"completion_tokens":1}`),
			faults: []string{"up:too_large"}},
		{name: "plausible", answer: chat(`{"prompt_tokens":5,"completion_tokens":2}`),
			want: catalog.Usage{InputTokens: 5, OutputTokens: 2, TotalTokens: 7}, has: true},
		// A stream whose first usage chunk is plausible and whose later
		// ones are not: the answer's usage is refused, counted once.
		{name: "stream", stream: true, answer: "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":" + maxInt + "}}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":" + maxInt + "}}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\n\n" +
			"data: [DONE]\n\n",
			faults: []string{"up:too_large"}},
		{name: "stream negative", stream: true, answer: "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-4,\"completion_tokens\":1}}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-4,\"completion_tokens\":2}}\n\n" +
			"data: [DONE]\n\n",
			want: catalog.Usage{OutputTokens: 2, TotalTokens: 2}, has: true, faults: []string{"up:negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response {
				if c.stream {
					return sseResponse(c.answer)
				}
				return jsonResponse(200, c.answer)
			}}
			s := newService(t, p)
			var faults faultLog
			s.UsageRejected = faults.add
			body := `{"model":"m1","messages":[]}`
			if c.stream {
				body = `{"model":"m1","stream":true,"messages":[]}`
			}
			rec, info := serve(s, "POST", "/v1/chat/completions", body)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			u, has := info.Usage()
			if u != c.want || has != c.has {
				t.Errorf("usage %+v %v, want %+v %v", u, has, c.want, c.has)
			}
			if len(faults) != len(c.faults) || (len(faults) > 0 && faults[0] != c.faults[0]) {
				t.Errorf("faults %v, want %v", faults, c.faults)
			}
			if _, known := info.Cost(); known && !c.has {
				t.Error("a refused usage has a known cost")
			}
		})
	}
}

// TestRealtimeResponseUsageIsChecked: each response.done of a realtime
// session is an answer whose usage is checked on its own: a refused one
// adds nothing to the session's and is counted.
func TestRealtimeResponseUsageIsChecked(t *testing.T) {
	var faults faultLog
	rl := &relay{info: reqinfo.New(), fault: func(f catalog.UsageFault) { faults.add("rt", f) }}
	done := func(usage string) []byte {
		return []byte(`{"type":"response.done","response":{"usage":` + usage + `}}`)
	}
	rl.responseDone(done(`{"input_tokens":3,"output_tokens":2}`))
	rl.responseDone(done(`{"input_tokens":3,"output_tokens":9223372036854775807}`))
	rl.responseDone(done(`{"input_tokens":-3,"output_tokens":1}`))
	u, ok := rl.info.Usage()
	if want := (catalog.Usage{InputTokens: 3, OutputTokens: 3, TotalTokens: 6}); !ok || u != want {
		t.Fatalf("session usage %+v %v, want %+v", u, ok, want)
	}
	if len(faults) != 2 || faults[0] != "rt:too_large" || faults[1] != "rt:negative" {
		t.Fatalf("faults %v", faults)
	}
}

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
