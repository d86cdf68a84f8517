package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestRedisSharesSpendAndCache: a gateway with redis keeps budget spend
// and response-cache entries there, as another process on the same
// server sees them: spend charged by the gateway shows at the other,
// spend charged by the other makes the gateway refuse, a reset through
// the gateway clears it for the other, and an answer the other stored is
// a hit at the gateway. User paths and bodies carry a random nonce,
// since the gateway uses the default key prefix.
func TestRedisSharesSpendAndCache(t *testing.T) {
	url, _ := redistest.New(t)
	clearEnv(t)
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	var nb [6]byte
	_, _ = rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	team := "/e2e-redis-" + nonce
	c := replayChatCost(t)
	u := newReplay(t, "openai")
	g := startGateway(t, "master_key "+masterKey+"\nstorage "+filepath.Join(t.TempDir(), "mg.db")+"\nredis "+url+"\n"+
		providerBlock("openai", "openai", "sk-openai-prov-SECRET-1111", u.BaseURL()))

	// The other process: its own client, service and cache on the server.
	rc, err := redisstore.Open(context.Background(), redisstore.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Destruct()
	other, err := budgets.New(budgets.Options{Spend: redisstore.NewBudgets(rc)})
	if err != nil {
		t.Fatal(err)
	}
	otherCache, err := cache.Open(cache.Options{Storage: redisstore.NewCache(rc), Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	key := budgets.Key{UserPath: team, Period: budgets.Daily}
	defer func() {
		for _, p := range []string{"/app", "/c"} {
			_, _ = otherCache.Purge(cache.Filter{UserPath: team + p})
		}
		ctx := context.Background()
		iter := rc.R.Scan(ctx, 0, rc.Key("spend", team)+":*", 100).Iterator()
		for iter.Next(ctx) {
			rc.R.Del(ctx, iter.Val())
		}
	}()
	amount := 2.5 * c
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2F"+team[1:]+"/daily", `{"amount":`+strconv.FormatFloat(amount, 'g', -1, 64)+`}`); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	if _, err := other.Put(key, amount, false); err != nil {
		t.Fatal(err)
	}
	chat := func(i int) string {
		return `{"model":"gpt-4o-mini","max_tokens":4,"messages":[{"role":"user","content":"` + nonce + " " + strconv.Itoa(i) + `"}]}`
	}

	if res := budgetChatAs(t, g, team+"/app", chat(1)); res.Status != 200 {
		t.Fatalf("first request: %d %s", res.Status, res.Body)
	}
	if ok, _, _ := other.Check(team, time.Now()); !ok {
		t.Fatal("refused at the other process after one request of 2.5")
	}
	es := other.List()
	if len(es) != 1 || float64(es[0].Spent) < c*0.999 || float64(es[0].Spent) > c*1.001 {
		t.Fatalf("the other process sees %+v, want spent %v", es, c)
	}
	// The other process spends the rest: the gateway refuses.
	other.Charge(team+"/batch", 2*c, time.Now())
	budgetChatAs(t, g, team+"/app", chat(2)).ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	// A reset through the gateway clears it for the other process.
	if res := adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"`+team+`","period":"daily"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	if ok, _, _ := other.Check(team, time.Now()); !ok {
		t.Fatal("refused at the other process after a reset through the gateway")
	}

	// An answer the other process stored is a hit at the gateway.
	body := chat(3)
	k, err := cache.KeyOf(cache.Request{Endpoint: "/v1/chat/completions", Provider: "openai", Model: "gpt-4o-mini", UserPath: team + "/c"}, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	stored := `{"id":"from-the-other-process","object":"chat.completion","choices":[]}`
	ans := &cache.Answer{ProviderType: "openai", Headers: []cache.Header{{Name: "Content-Type", Value: "application/json"}}, Chunks: [][]byte{[]byte(stored)}}
	if err := otherCache.Put(cache.Meta{Key: k, UserPath: team + "/c", Provider: "openai", Model: "gpt-4o-mini"}, ans); err != nil {
		t.Fatal(err)
	}
	calls := upstreamChats(u)
	res := cachedCall(t, g, "/v1/chat/completions", team+"/c", body)
	expectCache(t, "entry stored by the other process", res, 200, "hit")
	if string(res.Body) != stored || upstreamChats(u) != calls {
		t.Fatalf("hit body %s (upstream calls %d → %d)", res.Body, calls, upstreamChats(u))
	}
	// And the other way round.
	body = chat(4)
	expectCache(t, "new request", cachedCall(t, g, "/v1/chat/completions", team+"/c", body), 200, "miss")
	k, _ = cache.KeyOf(cache.Request{Endpoint: "/v1/chat/completions", Provider: "openai", Model: "gpt-4o-mini", UserPath: team + "/c"}, []byte(body))
	if got, _, err := otherCache.Lookup(context.Background(), k, false); err != nil || got == nil {
		t.Fatalf("an answer the gateway stored is no hit at the other process: %v", err)
	}
}
