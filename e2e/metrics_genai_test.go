package e2e

import (
	"bufio"
	"context"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// scrape reads Caddy's /metrics on the admin endpoint into samples keyed
// by name and labels, the labels in name order: name{a="x",b="y"}.
func scrape(t *testing.T, g *gateway) map[string]float64 {
	t.Helper()
	res := request(t, "GET", g.AdminURL+"/metrics", "")
	if res.Status != 200 {
		t.Fatalf("/metrics: %d %s", res.Status, res.Body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(res.Body)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[sampleKey(line[:i])] = v
	}
	return out
}

// labelPair matches one label of a sample in the text format.
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// sampleKey is the sample name{labels} with its labels in name order.
func sampleKey(s string) string {
	name, labels, ok := strings.Cut(s, "{")
	if !ok {
		return s
	}
	var ls []string
	for _, m := range labelPair.FindAllStringSubmatch(labels, -1) {
		ls = append(ls, m[1]+`="`+m[2]+`"`)
	}
	slices.Sort(ls)
	return name + "{" + strings.Join(ls, ",") + "}"
}

// delta is after - before for every sample of after whose name has one of
// prefixes and that changed.
func delta(before, after map[string]float64, prefixes ...string) map[string]float64 {
	d := map[string]float64{}
	for k, v := range after {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) && v != before[k] {
				d[k] = v - before[k]
			}
		}
	}
	return d
}

// TestMetricsGenAIFamilies sends known traffic through the gateway (two
// priced chats, the second a cache hit; a mock stream; a chat for an
// unknown model; a chat a user-path rule lets through and one it refuses)
// and checks each metric family on Caddy's /metrics with exact counts: the
// change between a scrape before and one after, since the request metrics
// are the process's. User paths appear only to depth 1.
func TestMetricsGenAIFamilies(t *testing.T) {
	clearEnv(t)
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	t.Setenv("SET_RATE_LIMIT_MTL", "rpm=1")
	u := newReplay(t, "openai")
	g := startGateway(t, "master_key "+masterKey+"\nstorage "+filepath.Join(t.TempDir(), "mg.db")+"\n"+
		providerBlock("openai", "openai", "sk-openai-prov-SECRET-1111", u.BaseURL())+
		providerBlock("demo", "mock", "", ""))
	waitProvidersListed(t)
	before := scrape(t, g)

	call := func(userPath, body string) response {
		return request(t, "POST", g.URL+"/v1/chat/completions", body, append(bearer(masterKey), userPathHeader, userPath)...)
	}
	const priced = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`
	expectCache(t, "priced chat", call("/mt/a", priced), 200, "miss")
	expectCache(t, "priced chat again", call("/mt/a", priced), 200, "hit")
	stream := call("/mt/b", `{"model":"demo/mock-chat","stream":true,"messages":[{"role":"user","content":"count to ten"}]}`)
	if stream.Status != 200 || !strings.Contains(string(stream.Body), "data: [DONE]") {
		t.Fatalf("stream: %d %s", stream.Status, stream.Body)
	}
	call("/mt/c", `{"model":"no-such-model-xyz","messages":[{"role":"user","content":"hi"}]}`).ExpectErr(t, 404, "not_found_error", "model_not_found")
	if res := call("/mtl/x", `{"model":"demo/mock-chat","messages":[{"role":"user","content":"one"}]}`); res.Status != 200 {
		t.Fatalf("first limited chat: %d %s", res.Status, res.Body)
	}
	call("/mtl/x", `{"model":"demo/mock-chat","messages":[{"role":"user","content":"two"}]}`).ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if err := activeApp(t).AuditStorage().Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := scrape(t, g)

	const (
		oa   = `operation="chat",provider="openai",provider_type="openai",request_model="openai/gpt-4o-mini",response_model="gpt-4o-mini"`
		mock = `operation="chat",provider="demo",provider_type="mock",request_model="demo/mock-chat",response_model="mock-chat"`
		none = `operation="chat",provider="",provider_type="",request_model="",response_model=""`
	)
	cost := replayChatCost(t)
	want := map[string]float64{
		`modelgate_requests_total{` + oa + `,user_path="/mt"}`:    2,
		`modelgate_requests_total{` + mock + `,user_path="/mt"}`:  1,
		`modelgate_requests_total{` + none + `,user_path="/mt"}`:  1,
		`modelgate_requests_total{` + mock + `,user_path="/mtl"}`: 1,
		`modelgate_requests_total{` + none + `,user_path="/mtl"}`: 1,

		`modelgate_errors_total{operation="chat",provider="",code="model_not_found"}`:     1,
		`modelgate_errors_total{operation="chat",provider="",code="rate_limit_exceeded"}`: 1,

		`modelgate_cost_usd_total{` + oa + `,user_path="/mt"}`:          cost,
		`modelgate_cache_hits_total{` + oa + `,user_path="/mt"}`:        1,
		`modelgate_cache_savings_usd_total{` + oa + `,user_path="/mt"}`: cost,

		`modelgate_refusals_total{kind="rate_limit",rule="user_path:/mtl:minute"}`: 1,

		`modelgate_upstream_attempts_total{provider="openai",status_class="2xx"}`: 1,
		`modelgate_upstream_attempts_total{provider="demo",status_class="2xx"}`:   2,

		// The miss and the hit both report the replay's 17 + 4 tokens.
		`gen_ai_client_token_usage_count{` + oa + `,token_type="input"}`:    2,
		`gen_ai_client_token_usage_sum{` + oa + `,token_type="input"}`:      34,
		`gen_ai_client_token_usage_count{` + oa + `,token_type="output"}`:   2,
		`gen_ai_client_token_usage_sum{` + oa + `,token_type="output"}`:     8,
		`gen_ai_client_token_usage_count{` + mock + `,token_type="input"}`:  2,
		`gen_ai_client_token_usage_count{` + mock + `,token_type="output"}`: 2,

		`gen_ai_client_operation_duration_seconds_count{` + oa + `,error_type=""}`:                      2,
		`gen_ai_client_operation_duration_seconds_count{` + mock + `,error_type=""}`:                    2,
		`gen_ai_client_operation_duration_seconds_count{` + none + `,error_type="model_not_found"}`:     1,
		`gen_ai_client_operation_duration_seconds_count{` + none + `,error_type="rate_limit_exceeded"}`: 1,

		// Only the stream has a first token and a time per output token.
		`gen_ai_server_time_to_first_token_seconds_count{` + mock + `}`:   1,
		`gen_ai_server_time_per_output_token_seconds_count{` + mock + `}`: 1,
	}
	wanted := map[string]bool{}
	for k, v := range want {
		k = sampleKey(k)
		wanted[k] = true
		got := after[k] - before[k]
		if math.Abs(got-v) > 1e-12 {
			t.Errorf("%s changed by %v, want %v", k, got, v)
		}
	}
	// Nothing else changed in the request families: no failover, no
	// other label combination.
	for k, v := range delta(before, after, "modelgate_requests_total", "modelgate_errors_total", "modelgate_cost_usd_total",
		"modelgate_cache_", "modelgate_refusals_total", "modelgate_failovers_total", "modelgate_upstream_attempts_total",
		"gen_ai_client_token_usage_count", "gen_ai_client_operation_duration_seconds_count", "gen_ai_server_time_to_first_token_seconds_count",
		"gen_ai_server_time_per_output_token_seconds_count") {
		if !wanted[k] {
			t.Errorf("unexpected change %s by %v", k, v)
		}
	}
	for k := range after {
		if strings.Contains(k, `"/mt/`) || strings.Contains(k, `"/mtl/`) || strings.Contains(k, "no-such-model") {
			t.Errorf("an unbounded label value: %s", k)
		}
	}

	// Storage: the queue is empty after the flush, the writer committed,
	// nothing was dropped.
	if v, ok := after[`modelgate_store_queue_depth{backend="bolt"}`]; !ok || v != 0 {
		t.Errorf("bolt queue depth %v (present %v), want 0", v, ok)
	}
	if d := after[`modelgate_store_commit_seconds_count{backend="bolt"}`] - before[`modelgate_store_commit_seconds_count{backend="bolt"}`]; d < 1 {
		t.Errorf("bolt commits grew by %v, want at least 1", d)
	}
	for k, v := range delta(before, after, "modelgate_audit_dropped_total") {
		t.Errorf("dropped records: %s grew by %v", k, v)
	}
}
