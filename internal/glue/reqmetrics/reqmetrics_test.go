package reqmetrics

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// gather registers rec in a new registry and returns every sample it
// exposes, keyed by name and labels in the text format's form:
// name{a="x",b="y"}; a histogram gives name_count, name_sum and its
// non-empty name_bucket{...,le="..."} samples.
func gather(t *testing.T, rec *Recorder) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := rec.Register(reg); err != nil {
		t.Fatal(err)
	}
	if err := rec.Register(reg); err != nil {
		t.Fatalf("registering twice: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, lp := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			key := func(name string, extra ...string) string {
				return sortLabels(name + "{" + strings.Join(append(slices.Clone(ls), extra...), ",") + "}")
			}
			switch {
			case m.GetCounter() != nil:
				out[key(mf.GetName())] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key(mf.GetName())] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				h := m.GetHistogram()
				out[key(mf.GetName()+"_count")] = float64(h.GetSampleCount())
				out[key(mf.GetName()+"_sum")] = h.GetSampleSum()
				for _, b := range h.GetBucket() {
					if b.GetCumulativeCount() > 0 {
						out[key(mf.GetName()+"_bucket", fmt.Sprintf("le=%q", fmt.Sprint(b.GetUpperBound())))] = float64(b.GetCumulativeCount())
					}
				}
			}
		}
	}
	return out
}

// sortLabels returns the sample key k with its labels in name order, as
// gather writes them.
func sortLabels(k string) string {
	name, labels, ok := strings.Cut(strings.TrimSuffix(k, "}"), "{")
	if !ok {
		return k
	}
	ls := strings.Split(labels, ",")
	slices.Sort(ls)
	return name + "{" + strings.Join(ls, ",") + "}"
}

// want checks that got has every sample of want with its value.
func want(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v, ok := got[sortLabels(k)]
		if !ok {
			t.Errorf("missing %s (want %v)", k, want[k])
			continue
		}
		if diff := v - want[k]; diff > 1e-12 || diff < -1e-12 {
			t.Errorf("%s = %v, want %v", k, v, want[k])
		}
	}
}

// answered is a chat request of /team/alice/agent answered by provider
// "oa" (openai) with gpt-4o-mini, 1000 input and 200 output tokens,
// after d.
func answered(d time.Duration) (*reqinfo.Info, Outcome) {
	info := reqinfo.New()
	info.UserPath = "/team/alice/agent"
	info.KeyID, info.SessionID = "key-123", "sess-456"
	info.RequestedModel, info.ResolvedModel = "fast", "gpt-4o-mini"
	info.ProviderName, info.ProviderType = "oa", "openai"
	info.SetUsage(catalog.Usage{InputTokens: 1000, OutputTokens: 200, TotalTokens: 1200})
	return info, Outcome{Status: 200, End: info.Start.Add(d)}
}

const chatLabels = `operation="chat",provider="oa",provider_type="openai",request_model="fast",response_model="gpt-4o-mini"`

func TestObserveAnswered(t *testing.T) {
	rec := New()
	o := rec.Observer(1)
	info, out := answered(300 * time.Millisecond)
	o.Observe(routes.ShapeChat, info, out)
	o.Observe(routes.ShapeMessages, info, out)
	cost, ok := info.Cost()
	if !ok || cost.Total <= 0 {
		t.Fatalf("gpt-4o-mini has no price: %+v", cost)
	}
	got := gather(t, rec)
	want(t, got, map[string]float64{
		`modelgate_requests_total{` + chatLabels + `,user_path="/team"}`:                              2,
		`modelgate_cost_usd_total{` + chatLabels + `,user_path="/team"}`:                              2 * cost.Total,
		`gen_ai_client_token_usage_count{` + chatLabels + `,token_type="input"}`:                      2,
		`gen_ai_client_token_usage_sum{` + chatLabels + `,token_type="input"}`:                        2000,
		`gen_ai_client_token_usage_bucket{` + chatLabels + `,token_type="input",le="1024"}`:           2,
		`gen_ai_client_token_usage_sum{` + chatLabels + `,token_type="output"}`:                       400,
		`gen_ai_client_token_usage_bucket{` + chatLabels + `,token_type="output",le="256"}`:           2,
		`gen_ai_client_operation_duration_seconds_count{` + chatLabels + `,error_type=""}`:            2,
		`gen_ai_client_operation_duration_seconds_sum{` + chatLabels + `,error_type=""}`:              0.6,
		`gen_ai_client_operation_duration_seconds_bucket{` + chatLabels + `,error_type="",le="0.32"}`: 2,
	})
	for k := range got {
		if strings.Contains(k, "key-123") || strings.Contains(k, "sess-456") || strings.Contains(k, "alice") {
			t.Errorf("a key id, session id or deep user path in %s", k)
		}
		if strings.HasPrefix(k, "modelgate_errors_total") || strings.HasPrefix(k, "modelgate_cache") {
			t.Errorf("an error or a cache hit counted: %s", k)
		}
	}
}

func TestObserveErrors(t *testing.T) {
	rec := New()
	o := rec.Observer(2)
	// An unknown model: refused before any provider, so no model label.
	info := reqinfo.New()
	info.UserPath = "/team/alice/agent"
	info.RequestedModel = "made-up-model-1"
	o.Observe(routes.ShapeChat, info, Outcome{Status: 404, Code: "model_not_found", End: info.Start.Add(time.Millisecond)})
	// An upstream's own code is not a label value.
	info2, _ := answered(0)
	info2.DropUsage()
	o.Observe(routes.ShapeEmbeddings, info2, Outcome{Status: 400, Code: "context_length_exceeded", End: info2.Start.Add(2 * time.Second)})
	got := gather(t, rec)
	want(t, got, map[string]float64{
		`modelgate_errors_total{operation="chat",provider="",code="model_not_found"}`:                                                                                                     1,
		`modelgate_requests_total{operation="chat",provider="",provider_type="",request_model="",response_model="",user_path="/team/alice"}`:                                              1,
		`gen_ai_client_operation_duration_seconds_count{operation="chat",provider="",provider_type="",request_model="",response_model="",error_type="model_not_found"}`:                   1,
		`modelgate_errors_total{operation="embeddings",provider="oa",code="_OTHER"}`:                                                                                                      1,
		`gen_ai_client_operation_duration_seconds_sum{operation="embeddings",provider="oa",provider_type="openai",request_model="fast",response_model="gpt-4o-mini",error_type="_OTHER"}`: 2,
	})
	for k := range got {
		if strings.Contains(k, "made-up") || strings.Contains(k, "context_length") {
			t.Errorf("an unbounded value in %s", k)
		}
		if strings.HasPrefix(k, "gen_ai_client_token_usage") || strings.HasPrefix(k, "modelgate_cost_usd_total") ||
			strings.Contains(k, `error_type=""`) {
			t.Errorf("a series the requests never counted in: %s = %v", k, got[k])
		}
	}
}

func TestObserveStream(t *testing.T) {
	rec := New()
	o := rec.Observer(1)
	info, out := answered(2200 * time.Millisecond)
	info.Stream = true
	info.MarkFirstToken(info.Start.Add(200 * time.Millisecond))
	info.MarkFirstToken(info.Start.Add(time.Second)) // only the first counts
	o.Observe(routes.ShapeChat, info, out)
	// A stream that failed has no first-token or per-token time.
	o.Observe(routes.ShapeChat, info, Outcome{Status: 502, Code: "upstream_read_failed", End: out.End})
	got := gather(t, rec)
	want(t, got, map[string]float64{
		`gen_ai_server_time_to_first_token_seconds_count{` + chatLabels + `}`:            1,
		`gen_ai_server_time_to_first_token_seconds_sum{` + chatLabels + `}`:              0.2,
		`gen_ai_server_time_to_first_token_seconds_bucket{` + chatLabels + `,le="0.25"}`: 1,
		`gen_ai_server_time_per_output_token_seconds_count{` + chatLabels + `}`:          1,
		// 2 s after the first token for the 199 tokens after it.
		`gen_ai_server_time_per_output_token_seconds_sum{` + chatLabels + `}`: 2.0 / 199,
	})
	// Without a streamed first token (a whole answer) neither is observed.
	rec = New()
	plain, out := answered(time.Second)
	rec.Observer(1).Observe(routes.ShapeChat, plain, out)
	for k := range gather(t, rec) {
		if strings.HasPrefix(k, "gen_ai_server_") {
			t.Errorf("a whole answer observed %s", k)
		}
	}
}

func TestObserveCacheHit(t *testing.T) {
	rec := New()
	info, out := answered(5 * time.Millisecond)
	info.CacheHit = true
	rec.Observer(0).Observe(routes.ShapeChat, info, out)
	saved, ok := catalog.PriceConsumption("openai", "gpt-4o-mini", catalog.Consumption{Usage: catalog.Usage{InputTokens: 1000, OutputTokens: 200, TotalTokens: 1200}})
	if !ok {
		t.Fatal("gpt-4o-mini has no price")
	}
	got := gather(t, rec)
	if _, ok := got[sortLabels(`modelgate_cost_usd_total{`+chatLabels+`,user_path=""}`)]; ok {
		t.Error("a cache hit has a cost")
	}
	want(t, got, map[string]float64{
		`modelgate_cache_hits_total{` + chatLabels + `,user_path=""}`:        1,
		`modelgate_cache_savings_usd_total{` + chatLabels + `,user_path=""}`: saved.Total,
		`modelgate_requests_total{` + chatLabels + `,user_path=""}`:          1,
	})
}

func TestObserveRefusalsAndAttempts(t *testing.T) {
	rec := New()
	o := rec.Observer(1)
	// A user-path rule on a deep path: the label keeps the first segment.
	limited := reqinfo.New()
	limited.UserPath = "/team/alice"
	limited.RateLimitRule = &reqinfo.Rule{Scope: "user_path", Subject: "/team/alice", Period: "minute"}
	o.Observe(routes.ShapeChat, limited, Outcome{Status: 429, Code: CodeRateLimited, End: limited.Start})
	o.Observe(routes.ShapeChat, limited, Outcome{Status: 429, Code: CodeRateLimited, End: limited.Start})
	// A model rule refused the only target.
	model := reqinfo.New()
	model.RateLimitRule = &reqinfo.Rule{Scope: "model", Subject: "gpt-4o-mini", Period: "60s"}
	o.Observe(routes.ShapeChat, model, Outcome{Status: 429, Code: CodeRateLimited, End: model.Start})
	// A spent budget.
	spent := reqinfo.New()
	spent.BudgetRule = &reqinfo.Rule{Subject: "/team", Period: "monthly"}
	o.Observe(routes.ShapeMessages, spent, Outcome{Status: 429, Code: CodeBudgetExceeded, End: spent.Start})
	// A request that failed over twice: a 503, a target a rule refused
	// (not called), then an answer.
	info, out := answered(time.Second)
	info.AddAttempt(reqinfo.Attempt{Provider: "oa", StatusCode: 503})
	info.AddAttempt(reqinfo.Attempt{Provider: "ob", StatusCode: 429, NotCalled: true})
	info.AddAttempt(reqinfo.Attempt{Provider: "an", StatusCode: 200})
	o.Observe(routes.ShapeChat, info, out)
	// A call that got no answer.
	gone, _ := answered(0)
	gone.AddAttempt(reqinfo.Attempt{Provider: "oa"})
	o.Observe(routes.ShapeChat, gone, Outcome{Status: 502, Code: "upstream_unreachable", End: gone.Start})
	got := gather(t, rec)
	want(t, got, map[string]float64{
		`modelgate_refusals_total{kind="rate_limit",rule="user_path:/team:minute"}`:       2,
		`modelgate_refusals_total{kind="rate_limit",rule="model:gpt-4o-mini:60s"}`:        1,
		`modelgate_refusals_total{kind="budget",rule="/team:monthly"}`:                    1,
		`modelgate_errors_total{operation="chat",provider="",code="rate_limit_exceeded"}`: 3,
		`modelgate_failovers_total{operation="chat",from_provider="oa",to_provider="ob"}`: 1,
		`modelgate_failovers_total{operation="chat",from_provider="ob",to_provider="an"}`: 1,
		`modelgate_upstream_attempts_total{provider="oa",status_class="5xx"}`:             1,
		`modelgate_upstream_attempts_total{provider="an",status_class="2xx"}`:             1,
		`modelgate_upstream_attempts_total{provider="oa",status_class="none"}`:            1,
	})
	for k := range got {
		if strings.Contains(k, `provider="ob",status_class`) || strings.Contains(k, "alice") {
			t.Errorf("unexpected sample %s", k)
		}
	}
}

func TestTruncateUserPath(t *testing.T) {
	for _, c := range []struct {
		p     string
		depth int
		want  string
	}{
		{"", 1, "/"}, {"/", 1, "/"}, {"/team", 1, "/team"}, {"/team/alice", 1, "/team"},
		{"/team/alice/agent", 2, "/team/alice"}, {"/team/alice", 5, "/team/alice"}, {"/team", 0, ""},
	} {
		if got := TruncateUserPath(c.p, c.depth); got != c.want {
			t.Errorf("TruncateUserPath(%q, %d) = %q, want %q", c.p, c.depth, got, c.want)
		}
	}
}

func TestOperation(t *testing.T) {
	for s, want := range map[routes.Shape]string{
		routes.ShapeChat: "chat", routes.ShapeMessages: "chat", routes.ShapeResponses: "chat",
		routes.ShapeEmbeddings: "embeddings", routes.ShapeCountTokens: "count_tokens", routes.ShapePassthrough: "passthrough",
	} {
		if got := Operation(s); got != want {
			t.Errorf("Operation(%v) = %q, want %q", s, got, want)
		}
	}
}

// TestObserveAllocs: once a label combination was seen, observing a
// request allocates nothing.
func TestObserveAllocs(t *testing.T) {
	o := New().Observer(1)
	info, out := answered(100 * time.Millisecond)
	info.AddAttempt(reqinfo.Attempt{Provider: "oa", StatusCode: 503})
	info.AddAttempt(reqinfo.Attempt{Provider: "ob", StatusCode: 200})
	info.MarkFirstToken(info.Start.Add(10 * time.Millisecond))
	failed := Outcome{Status: 502, Code: "upstream_timeout", End: out.End}
	limited := reqinfo.New()
	limited.UserPath = "/team/alice"
	limited.RateLimitRule = &reqinfo.Rule{Scope: "user_path", Subject: "/team/alice", Period: "minute"}
	refused := Outcome{Status: 429, Code: CodeRateLimited, End: limited.Start}
	o.Observe(routes.ShapeChat, limited, refused)
	o.Observe(routes.ShapeChat, info, out)
	o.Observe(routes.ShapeChat, info, failed)
	if n := testing.AllocsPerRun(100, func() {
		o.Observe(routes.ShapeChat, info, out)
		o.Observe(routes.ShapeChat, info, failed)
		o.Observe(routes.ShapeChat, limited, refused)
	}); n != 0 {
		t.Errorf("Observe allocates %v times per three requests", n)
	}
}

// BenchmarkObserve is the recorder's cost per finished request: an
// answered chat request with one upstream call, usage and cost, its labels
// already seen.
func BenchmarkObserve(b *testing.B) {
	o := New().Observer(1)
	info, out := answered(100 * time.Millisecond)
	info.AddAttempt(reqinfo.Attempt{Provider: "oa", StatusCode: 200})
	o.Observe(routes.ShapeChat, info, out)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.Observe(routes.ShapeChat, info, out)
	}
}

// BenchmarkObserveParallel is BenchmarkObserve from every core at once.
func BenchmarkObserveParallel(b *testing.B) {
	o := New().Observer(1)
	info, out := answered(100 * time.Millisecond)
	info.AddAttempt(reqinfo.Attempt{Provider: "oa", StatusCode: 200})
	o.Observe(routes.ShapeChat, info, out)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.Observe(routes.ShapeChat, info, out)
		}
	})
}
