package e2e

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// breakdownSums is what one breakdown row must hold, summed by hand from
// audit entries.
type breakdownSums struct {
	requests, input, output, cached, cacheWrite, reasoning, hits int64
	cost, avoided                                                catalog.Nanos
	priced                                                       bool
	durations                                                    []int64
}

// TestUsageBreakdownMatchesAuditEntries: traffic over two managed keys
// and the master key, three user paths, two providers and models and two
// endpoints, with response-cache hits; every row of every breakdown
// equals the sums computed from the individual audit entries, and the
// filters, depth and paging narrow and split it.
func TestUsageBreakdownMatchesAuditEntries(t *testing.T) {
	clearEnv(t)
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	g, k1, k2 := startAttributionGateway(t, "")
	calls := append(attributionCalls(k1, k2), []attributionCall{
		{masterKey, "/org/c", "/v1/chat/completions", attributionChat(6), 200},
		{k2.Secret, "", "/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}`, 404},
	}...)
	sendAttribution(t, g, calls)

	entries, usage := auditRecords(t)
	var used []*audit.Entry
	hits := 0
	for _, es := range entries {
		for _, e := range es {
			if len(usage[e.ID]) > 0 {
				used = append(used, e)
				if e.IsCacheHit() {
					hits++
				}
			}
		}
	}
	if len(used) != 8 || hits != 2 {
		t.Fatalf("%d entries with usage, %d cache hits; want 8 and 2", len(used), hits)
	}

	// expect sums the entries by the group key returns, "" to skip one.
	expect := func(key func(e *audit.Entry) string) map[string]*breakdownSums {
		out := map[string]*breakdownSums{}
		for _, e := range used {
			k := key(e)
			if k == "-" {
				continue
			}
			s := out[k]
			if s == nil {
				s = &breakdownSums{}
				out[k] = s
			}
			u := e.Usage.Usage
			s.requests++
			s.input += u.InputTokens
			s.output += u.OutputTokens
			s.cached += u.CachedInputTokens
			s.cacheWrite += u.CacheWriteInputTokens
			s.reasoning += u.ReasoningTokens
			s.durations = append(s.durations, e.DurationNs)
			if e.IsCacheHit() {
				s.hits++
				if b, ok := catalog.Price(e.Provider, e.ResolvedModel, u); ok {
					s.avoided = s.avoided.Add(catalog.NanosOf(b.Total))
				}
				continue
			}
			if e.Cost != nil {
				s.priced = true
				s.cost = s.cost.Add(catalog.NanosOf(e.Cost.Total))
			}
		}
		return out
	}
	// percentile is the documented p-th percentile of durations: the
	// upper bound of the histogram bucket holding the ceil(n×p)-th.
	percentile := func(ds []int64, p float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		d := ds[max(0, int(math.Ceil(float64(len(ds))*p))-1)]
		return float64(audit.DurationBucketsMs[min(audit.DurationBucket(d), len(audit.DurationBucketsMs)-1)])
	}
	check := func(query string, want map[string]*breakdownSums, names map[string]string) {
		t.Helper()
		m := adminCall(t, g, "GET", "/admin/usage/breakdown?"+query, "").JSON(t)
		rows := m["rows"].([]any)
		if len(rows) != len(want) || m["next"] != nil {
			t.Fatalf("%s: %d rows (next %v), want %d: %v", query, len(rows), m["next"], len(want), m)
		}
		prev := math.Inf(1)
		for _, r := range rows {
			r := r.(map[string]any)
			group := r["group"].(string)
			w := want[group]
			if w == nil {
				t.Fatalf("%s: unexpected group %q", query, group)
			}
			for field, v := range map[string]int64{"requests": w.requests, "input_tokens": w.input, "output_tokens": w.output,
				"cached_input_tokens": w.cached, "cache_write_input_tokens": w.cacheWrite, "reasoning_tokens": w.reasoning,
				"cache_hits": w.hits, "errors_4xx": 0, "errors_5xx": 0} {
				if r[field] != float64(v) {
					t.Errorf("%s, %s: %s %v, want %d", query, group, field, r[field], v)
				}
			}
			cost, _ := r["total_cost"].(float64)
			if w.priced != (r["total_cost"] != nil) || math.Abs(cost-w.cost.Float()) > 1e-12 {
				t.Errorf("%s, %s: total_cost %v, want %v (priced %v)", query, group, r["total_cost"], w.cost.Float(), w.priced)
			}
			if math.Abs(r["cost_avoided"].(float64)-w.avoided.Float()) > 1e-12 {
				t.Errorf("%s, %s: cost_avoided %v, want %v", query, group, r["cost_avoided"], w.avoided.Float())
			}
			if r["p50_ms"] != percentile(w.durations, 0.5) || r["p95_ms"] != percentile(w.durations, 0.95) {
				t.Errorf("%s, %s: p50 %v p95 %v, want %v %v", query, group, r["p50_ms"], r["p95_ms"],
					percentile(w.durations, 0.5), percentile(w.durations, 0.95))
			}
			if names != nil {
				if name, _ := r["name"].(string); name != names[group] {
					t.Errorf("%s, %s: name %q, want %q", query, group, name, names[group])
				}
			}
			if cost > prev {
				t.Errorf("%s: rows not ordered by cost: %v", query, rows)
			}
			prev = cost
		}
	}
	check("by=user_path&days=1", expect(func(e *audit.Entry) string { return e.UserPath }), nil)
	check("by=key&days=1", expect(func(e *audit.Entry) string { return e.AuthKeyID }),
		map[string]string{k1.ID: "alpha", k2.ID: "beta", "": ""})
	check("by=model&days=1", expect(func(e *audit.Entry) string { return e.ResolvedModel }), nil)
	check("by=provider&days=1", expect(func(e *audit.Entry) string { return e.ProviderName }), nil)
	check("by=endpoint&days=1", expect(func(e *audit.Entry) string { return e.Path }), nil)
	check("by=user_path&depth=1", expect(func(e *audit.Entry) string { return "/org" }), nil)

	// Filters: a path covers the paths below it; key, model, provider.
	check("by=model&user_path=/org/b", expect(func(e *audit.Entry) string {
		if !userpath.Covers("/org/b", e.UserPath) {
			return "-"
		}
		return e.ResolvedModel
	}), nil)
	check("by=endpoint&key_id="+k1.ID, expect(func(e *audit.Entry) string {
		if e.AuthKeyID != k1.ID {
			return "-"
		}
		return e.Path
	}), nil)
	check("by=key&model="+claudeModel+"&provider=anth", expect(func(e *audit.Entry) string {
		if e.ResolvedModel != claudeModel || e.ProviderName != "anth" {
			return "-"
		}
		return e.AuthKeyID
	}), nil)

	// Pages of one row each list every group once, in order.
	var paged []string
	next := ""
	for range 10 {
		q := "/admin/usage/breakdown?by=user_path&limit=1"
		if next != "" {
			q += "&after=" + url.QueryEscape(next)
		}
		m := adminCall(t, g, "GET", q, "").JSON(t)
		for _, r := range m["rows"].([]any) {
			paged = append(paged, r.(map[string]any)["group"].(string))
		}
		if next, _ = m["next"].(string); next == "" {
			break
		}
	}
	whole := adminCall(t, g, "GET", "/admin/usage/breakdown?by=user_path", "").JSON(t)
	var want []string
	for _, r := range whole["rows"].([]any) {
		want = append(want, r.(map[string]any)["group"].(string))
	}
	if !slices.Equal(paged, want) || len(want) != 3 {
		t.Fatalf("paged %v, whole %v", paged, want)
	}
	if st, _ := time.Parse(time.RFC3339Nano, whole["server_time"].(string)); time.Since(st) > time.Minute {
		t.Fatalf("server_time %v", whole["server_time"])
	}
	adminCall(t, g, "GET", "/admin/usage/breakdown", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")

	// The summary takes the same filters.
	for _, c := range []struct {
		query string
		keep  func(e *audit.Entry) bool
	}{
		{"key_id=" + k1.ID, func(e *audit.Entry) bool { return e.AuthKeyID == k1.ID }},
		{"user_path=/org/b", func(e *audit.Entry) bool { return userpath.Covers("/org/b", e.UserPath) }},
		{"model=" + claudeModel, func(e *audit.Entry) bool { return e.ResolvedModel == claudeModel }},
		{"provider=openai", func(e *audit.Entry) bool { return e.ProviderName == "openai" }},
	} {
		var n int
		var cost catalog.Nanos
		for _, e := range used {
			if c.keep(e) {
				n++
				if e.Cost != nil && !e.IsCacheHit() {
					cost = cost.Add(catalog.NanosOf(e.Cost.Total))
				}
			}
		}
		m := adminCall(t, g, "GET", "/admin/usage/summary?days=1&"+c.query, "").JSON(t)
		if m["total_requests"] != float64(n) || math.Abs(m["total_cost"].(float64)-cost.Float()) > 1e-12 || n == 0 {
			t.Errorf("summary %s: %v, want %d requests costing %v", c.query, m, n, cost.Float())
		}
	}

	// The audit log's filters by key, error code, several status classes
	// and model substring; entries name their key.
	var every []*audit.Entry
	for _, es := range entries {
		every = append(every, es...)
	}
	var refused *audit.Entry
	for _, e := range every {
		if e.StatusCode == 404 {
			refused = e
		}
	}
	if refused == nil || refused.Data == nil || refused.Data.ErrorCode == "" {
		t.Fatalf("no refused entry with an error code: %+v", refused)
	}
	logCheck := func(query string, keep func(e *audit.Entry) bool) {
		t.Helper()
		m := adminCall(t, g, "GET", "/admin/audit/log?limit=200&"+query, "").JSON(t)
		want := 0
		for _, e := range every {
			if keep(e) {
				want++
			}
		}
		got := m["entries"].([]any)
		if m["total"] != float64(want) || len(got) != want || want == 0 {
			t.Fatalf("%s: total %v, %d entries; want %d", query, m["total"], len(got), want)
		}
		for _, e := range got {
			e := e.(map[string]any)
			names := map[string]string{k1.ID: "alpha", k2.ID: "beta", "": ""}
			if e["auth_key_name"] != names[e["auth_key_id"].(string)] {
				t.Errorf("%s: entry of key %v named %v", query, e["auth_key_id"], e["auth_key_name"])
			}
		}
	}
	logCheck("key_id="+k1.ID, func(e *audit.Entry) bool { return e.AuthKeyID == k1.ID })
	logCheck("key_id="+k2.ID+"&status=4xx,5xx", func(e *audit.Entry) bool { return e.AuthKeyID == k2.ID && e.StatusCode >= 400 })
	logCheck("status=4xx,5xx", func(e *audit.Entry) bool { return e.StatusCode >= 400 })
	logCheck("status=200,5xx", func(e *audit.Entry) bool { return e.StatusCode == 200 })
	logCheck("error_code="+refused.Data.ErrorCode, func(e *audit.Entry) bool { return e.Data != nil && e.Data.ErrorCode == refused.Data.ErrorCode })
	logCheck("model_contains=SONNET", func(e *audit.Entry) bool { return e.ResolvedModel == claudeModel })
	logCheck("user_path_under=/org/b", func(e *audit.Entry) bool { return userpath.Covers("/org/b", e.UserPath) })
	logCheck("user_path_under=/org&status=2xx", func(e *audit.Entry) bool { return e.StatusCode/100 == 2 })
	if e := adminCall(t, g, "GET", "/admin/audit/log/"+used[0].ID.String(), "").JSON(t); used[0].AuthKeyID != "" && e["auth_key_name"] == "" {
		t.Fatalf("single entry without its key name: %v", e)
	}
	adminCall(t, g, "GET", "/admin/usage/breakdown?by=key&depth=2", "").ExpectErr(t, 400, "invalid_request_error", "invalid_value")
}

// attributionCall is one request of the attribution traffic: the
// credential, the user-path header ("" for none), the endpoint, the body
// and the status expected.
type attributionCall struct {
	auth, path, endpoint, body string
	status                     int
}

// attributionChat is a priced chat request for the replayed OpenAI
// provider, its prompt numbered n.
func attributionChat(n int) string {
	return fmt.Sprintf(`{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"question %d"}]}`, n)
}

// attributionMessages is a priced Messages request for the replayed
// Anthropic provider, its prompt numbered n.
func attributionMessages(n int) string {
	return fmt.Sprintf(`{"model":"anth/%s","max_tokens":64,"messages":[{"role":"user","content":"question %d"}]}`, claudeModel, n)
}

// attributionCalls is the traffic both attribution tests start with:
// priced chat and Messages requests by alpha (k1) and beta (k2), each
// with one repeat the response cache answers, and one by the master key
// on /org/c.
func attributionCalls(k1, k2 managedKey) []attributionCall {
	chat, msgs := attributionChat, attributionMessages
	return []attributionCall{
		{k1.Secret, "", "/v1/chat/completions", chat(1), 200},
		{k1.Secret, "", "/v1/chat/completions", chat(1), 200}, // a cache hit
		{k1.Secret, "", "/v1/messages", msgs(2), 200},
		{k2.Secret, "", "/v1/chat/completions", chat(3), 200},
		{k2.Secret, "", "/v1/messages", msgs(4), 200},
		{k2.Secret, "", "/v1/messages", msgs(4), 200}, // a cache hit
		{masterKey, "/org/c", "/v1/chat/completions", chat(5), 200},
	}
}

// startAttributionGateway starts a gateway on the replayed OpenAI
// ("openai") and Anthropic ("anth") providers, with extra config lines,
// and creates two managed keys: alpha on /org/a and beta on /org/b/x.
func startAttributionGateway(t *testing.T, extra string) (g *gateway, alpha, beta managedKey) {
	t.Helper()
	oa, anth := newReplay(t, "openai"), newAnthropicReplay(t)
	block := "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), "gw.db") + "\n" +
		providerBlock("openai", "openai", "sk-openai-prov-SECRET-1111", oa.BaseURL()) +
		providerBlock("anth", "anthropic", anthropicKey, anth.BaseURL()) + extra
	g = startGateway(t, block)
	return g, createKey(t, g, `{"name":"alpha","user_path":"/org/a"}`), createKey(t, g, `{"name":"beta","user_path":"/org/b/x"}`)
}

// sendAttribution sends calls to g in order and fails on an unexpected
// status.
func sendAttribution(t *testing.T, g *gateway, calls []attributionCall) {
	t.Helper()
	for i, c := range calls {
		h := bearer(c.auth)
		if c.path != "" {
			h = append(h, userPathHeader, c.path)
		}
		if res := request(t, "POST", g.URL+c.endpoint, c.body, h...); res.Status != c.status {
			t.Fatalf("call %d: %d %s", i, res.Status, res.Body)
		}
	}
}
