package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// cacheHeader is the header naming how the response cache treated a
// request.
const cacheHeader = "X-Modelgate-Cache"

// startCacheGateway starts a gateway with the response cache on over an
// OpenAI replay, its store at dbPath, and returns it, the replay and the
// block (to restart it).
func startCacheGateway(t *testing.T, dbPath string) (*gateway, *replay, string) {
	t.Helper()
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	u := newReplay(t, "openai")
	block := "master_key " + masterKey + "\nstorage " + dbPath + "\n" +
		providerBlock("openai", "openai", "sk-openai-prov-SECRET-1111", u.BaseURL())
	return startGateway(t, block), u, block
}

// cachedCall posts body to path for userPath with extra header pairs.
func cachedCall(t testing.TB, g *gateway, path, userPath, body string, extra ...string) response {
	t.Helper()
	h := append(bearer(masterKey), userPathHeader, userPath)
	return request(t, "POST", g.URL+path, body, append(h, extra...)...)
}

// expectCache checks the status and the cache header of res.
func expectCache(t testing.TB, what string, res response, status int, want string) {
	t.Helper()
	if res.Status != status || res.Header.Get(cacheHeader) != want {
		t.Fatalf("%s: %d %s=%q (want %d %q) %s", what, res.Status, cacheHeader, res.Header.Get(cacheHeader), status, want, res.Body)
	}
}

// upstreamChats counts the chat calls the replay received.
func upstreamChats(u *replay) int { return len(u.Requests("/v1/chat/completions")) }

// TestCacheExactMatch: the second identical chat request (keys reordered,
// other white space) is a hit with the same bytes and no upstream call;
// streams replay the same events; messages hit too; another user path
// misses; no-cache bypasses and no-store does not write; a 500 is never
// stored; hits are audited as cache_type exact with their tokens and cost
// 0; /admin/cache counts and purges.
func TestCacheExactMatch(t *testing.T) {
	clearEnv(t)
	g, u, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))

	first := cachedCall(t, g, "/v1/chat/completions", "/team/a", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`)
	expectCache(t, "first chat", first, 200, "miss")
	second := cachedCall(t, g, "/v1/chat/completions", "/team/a", `{ "messages": [ {"content":"hi", "role":"user"} ],
		"model": "gpt-4o-mini" }`)
	expectCache(t, "second chat", second, 200, "hit")
	if !bytes.Equal(first.Body, second.Body) || second.Header.Get("Content-Type") != first.Header.Get("Content-Type") ||
		second.Header.Get("X-Modelgate-Provider") != "openai" {
		t.Fatalf("hit differs:\n%s\n%v\n%s", first.Body, second.Header, second.Body)
	}
	if n := upstreamChats(u); n != 1 {
		t.Fatalf("upstream chat calls %d, want 1", n)
	}

	// Streams: stored as their events, replayed the same.
	stream := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	s1 := cachedCall(t, g, "/v1/chat/completions", "/team/a", stream)
	expectCache(t, "first stream", s1, 200, "miss")
	s2 := cachedCall(t, g, "/v1/chat/completions", "/team/a", stream)
	expectCache(t, "second stream", s2, 200, "hit")
	if !bytes.Equal(s1.Body, s2.Body) || !strings.HasPrefix(s2.Header.Get("Content-Type"), "text/event-stream") ||
		!strings.Contains(string(s2.Body), "data: [DONE]") || strings.Count(string(s2.Body), "\n\n") < 3 {
		t.Fatalf("stream hit differs:\n%s\n---\n%s", s1.Body, s2.Body)
	}
	if n := upstreamChats(u); n != 2 {
		t.Fatalf("upstream chat calls %d, want 2", n)
	}

	// Messages (translated onto the OpenAI upstream).
	msg := `{"model":"gpt-4o-mini","max_tokens":50,"messages":[{"role":"user","content":"hi"}]}`
	m1 := cachedCall(t, g, "/v1/messages", "/team/a", msg)
	expectCache(t, "first messages", m1, 200, "miss")
	m2 := cachedCall(t, g, "/v1/messages", "/team/a", msg)
	expectCache(t, "second messages", m2, 200, "hit")
	if !bytes.Equal(m1.Body, m2.Body) || upstreamChats(u) != 3 {
		t.Fatalf("messages hit: %s / %s, %d upstream calls", m1.Body, m2.Body, upstreamChats(u))
	}

	// Scope user_path: another path misses.
	expectCache(t, "other path", cachedCall(t, g, "/v1/chat/completions", "/team/b", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`), 200, "miss")

	// no-cache skips the lookup (and writes the fresh answer), no-store
	// skips the write.
	expectCache(t, "no-cache", cachedCall(t, g, "/v1/chat/completions", "/team/a", stream, "Cache-Control", "no-cache"), 200, "bypass")
	if n := upstreamChats(u); n != 5 {
		t.Fatalf("upstream chat calls %d, want 5", n)
	}
	ns := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"not stored"}]}`
	expectCache(t, "no-store", cachedCall(t, g, "/v1/chat/completions", "/team/a", ns, "Cache-Control", "no-store"), 200, "miss")
	expectCache(t, "after no-store", cachedCall(t, g, "/v1/chat/completions", "/team/a", ns), 200, "miss")
	expectCache(t, "stored now", cachedCall(t, g, "/v1/chat/completions", "/team/a", ns, "Cache-Control", "no-store"), 200, "hit")

	// A 500 is never stored.
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"boom","type":"server_error"}}`, http.StatusInternalServerError)
	})
	bad := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"fails once"}]}`
	if res := cachedCall(t, g, "/v1/chat/completions", "/team/a", bad); res.Status < 500 || res.Header.Get(cacheHeader) != "miss" {
		t.Fatalf("upstream 500: %d %v", res.Status, res.Header)
	}
	u.Unhandle("/v1/chat/completions")
	expectCache(t, "after a 500", cachedCall(t, g, "/v1/chat/completions", "/team/a", bad), 200, "miss")

	// The hit is audited as cache_type exact, with its tokens and no cost.
	var hitEntry map[string]any
	for try := 0; try < 50 && hitEntry == nil; try++ {
		for _, e := range adminCall(t, g, "GET", "/admin/audit/log?user_path=/team/a&limit=200", "").JSON(t)["entries"].([]any) {
			if e := e.(map[string]any); e["cache_type"] == "exact" {
				hitEntry = e
			}
		}
		if hitEntry == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if hitEntry == nil {
		t.Fatal("no audit entry with cache_type exact")
	}
	sum := adminCall(t, g, "GET", "/admin/usage/summary?days=1", "").JSON(t)
	t.Logf("usage summary after hits: %v", sum)

	// Admin: counts, filtered purge, confirmation.
	st := adminCall(t, g, "GET", "/admin/cache", "").JSON(t)
	if st["enabled"] != true || st["entries"] != 6.0 || st["hits"] != 4.0 || st["bytes"].(float64) <= 0 || st["scope"] != "user_path" {
		t.Fatalf("cache status %v", st)
	}
	if r := adminCall(t, g, "POST", "/admin/cache/purge", `{"user_path":"/team/b"}`).JSON(t); r["purged"] != 1.0 {
		t.Fatalf("purge /team/b: %v", r)
	}
	adminCall(t, g, "POST", "/admin/cache/purge", `{}`).ExpectErr(t, 400, "invalid_request_error", "confirmation_required")
	if r := adminCall(t, g, "POST", "/admin/cache/purge", `{"confirmation":"purge"}`).JSON(t); r["purged"] != 5.0 {
		t.Fatalf("purge all: %v", r)
	}
	expectCache(t, "after purge", cachedCall(t, g, "/v1/chat/completions", "/team/a", stream), 200, "miss")
}

// TestCacheHitBeforeLimits: a hit is answered while its user path is
// rate-limited and its budget spent, and counts against neither.
func TestCacheHitBeforeLimits(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "rpm=1")
	t.Setenv("SET_BUDGET_TEAM", fmt.Sprintf("daily=%g", 0.8*replayChatCost(t))) // fits one reservation
	g, u, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))
	expectCache(t, "first", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "miss")
	other := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"other"}]}`
	if res := cachedCall(t, g, "/v1/chat/completions", "/team/a", other); res.Status != 429 {
		t.Fatalf("over the limits: %d %s", res.Status, res.Body)
	}
	for i := 0; i < 3; i++ {
		expectCache(t, "hit", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "hit")
	}
	if used := rateUsed(t, g, "user_path", "/team", "minute"); used != 1 {
		t.Fatalf("requests counted %v, want 1", used)
	}
	if spent := budgetSpent(t, g, "/team", "daily"); spent != replayChatCost(t) {
		t.Fatalf("spent %v, want %v (one miss)", spent, replayChatCost(t))
	}
	if n := upstreamChats(u); n != 1 {
		t.Fatalf("upstream calls %d", n)
	}
}

// TestCacheGlobalScopeTTLAndRestart: with scope global another user path
// hits; entries expire after ttl_seconds (an injected clock); the store
// still serves hits after a restart.
func TestCacheGlobalScopeTTLAndRestart(t *testing.T) {
	clearEnv(t)
	var offset atomic.Int64
	caddymodule.CacheClock = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	t.Cleanup(func() { caddymodule.CacheClock = nil })
	t.Setenv("RESPONSE_CACHE_SCOPE", "global")
	t.Setenv("RESPONSE_CACHE_TTL_SECONDS", "60")
	db := filepath.Join(t.TempDir(), "mg.db")
	g, u, block := startCacheGateway(t, db)
	expectCache(t, "/a", cachedCall(t, g, "/v1/chat/completions", "/a", budgetChat), 200, "miss")
	expectCache(t, "/b", cachedCall(t, g, "/v1/chat/completions", "/b", budgetChat), 200, "hit")

	offset.Store(int64(61 * time.Second))
	expectCache(t, "expired", cachedCall(t, g, "/v1/chat/completions", "/a", budgetChat), 200, "miss")
	offset.Store(0)
	if n := upstreamChats(u); n != 2 {
		t.Fatalf("upstream calls %d", n)
	}

	g = restartGateway(t, block)
	expectCache(t, "after restart", cachedCall(t, g, "/v1/chat/completions", "/c", budgetChat), 200, "hit")
	if n := upstreamChats(u); n != 2 {
		t.Fatalf("upstream calls after restart %d", n)
	}
}

// TestCacheCoalescing: 100 identical requests in flight at once make
// exactly one upstream call and all get its answer.
func TestCacheCoalescing(t *testing.T) {
	clearEnv(t)
	g, u, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))
	fix, err := fixtures.Read("openai", "chat_completion.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fix)
	})
	const n = 100
	var wg sync.WaitGroup
	results := make([]response, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = send("POST", g.URL+"/v1/chat/completions", budgetChat, append(bearer(masterKey), userPathHeader, "/team")...)
		}()
	}
	wg.Wait()
	misses := 0
	for i, res := range results {
		if errs[i] != nil || res.Status != 200 || !bytes.Equal(res.Body, results[0].Body) {
			t.Fatalf("request %d: %v %d %s", i, errs[i], res.Status, res.Body)
		}
		if res.Header.Get(cacheHeader) == "miss" {
			misses++
		}
	}
	if calls.Load() != 1 || misses != 1 {
		t.Fatalf("%d upstream calls, %d misses; want 1 and 1", calls.Load(), misses)
	}
}

// TestCacheHitNotServedForDeniedModel: once a policy disables a model, an
// answer stored for it before is not served: the request is refused with
// 403 model_access_denied as an uncached one is.
func TestCacheHitNotServedForDeniedModel(t *testing.T) {
	clearEnv(t)
	g, _, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))
	expectCache(t, "first", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "miss")
	expectCache(t, "second", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "hit")
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"openai/gpt-4o-mini","enabled":false}`); res.Status != 200 {
		t.Fatalf("policy: %d %s", res.Status, res.Body)
	}
	cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat).ExpectErr(t, 403, "invalid_request_error", "model_access_denied")
}

// TestCacheFollowsVirtualModels: a request for a virtual model is cached
// under the target it is routed to. Its repeat is a hit (audited with
// alias_used), and once the virtual model is pointed elsewhere the
// answer stored for its old target (here, the provider model the name
// used to route to before an alias of that name shadowed it) is not
// served: the request goes to the new target.
func TestCacheFollowsVirtualModels(t *testing.T) {
	clearEnv(t)
	g, u, _ := startCacheGateway(t, filepath.Join(t.TempDir(), "mg.db"))
	upstreamModel := func() string {
		t.Helper()
		m, _ := u.LastChat(t).JSON(t)["model"].(string)
		return m
	}

	expectCache(t, "provider model", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "miss")
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"gpt-4o-mini","targets":[{"provider":"openai","model":"gpt-4"}]}`); res.Status != 200 {
		t.Fatalf("alias: %d %s", res.Status, res.Body)
	}
	expectCache(t, "after the alias", cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat), 200, "miss")
	if n, m := upstreamChats(u), upstreamModel(); n != 2 || m != "gpt-4" {
		t.Fatalf("after the alias: %d upstream calls, last for %q; want 2 and gpt-4", n, m)
	}
	hit := cachedCall(t, g, "/v1/chat/completions", "/team/a", budgetChat)
	expectCache(t, "alias repeated", hit, 200, "hit")
	if n := upstreamChats(u); n != 2 {
		t.Fatalf("alias repeated: %d upstream calls, want 2", n)
	}
	e := lastHitEntry(t, g)
	if e["cache_type"] != "exact" || e["alias_used"] != true || e["requested_model"] != "gpt-4o-mini" || e["resolved_model"] != "gpt-4" {
		t.Fatalf("hit audited as %v", e)
	}
}

// lastHitEntry waits for the newest audit entry to be a cache hit's and
// returns it.
func lastHitEntry(t *testing.T, g *gateway) map[string]any {
	t.Helper()
	var e map[string]any
	for try := 0; try < 100; try++ {
		if es, _ := adminCall(t, g, "GET", "/admin/audit/log?limit=1", "").JSON(t)["entries"].([]any); len(es) == 1 {
			if e = es[0].(map[string]any); e["cache_type"] == "exact" {
				return e
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the newest audit entry is no cache hit: %v", e)
	return nil
}
