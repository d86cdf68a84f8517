package proxy

import (
	"net/http"
	"testing"

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
