package e2e

import (
	"math"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// openRouterPrice is the price the fake OpenRouter reports for every
// answer, in USD: far from the catalog's estimate of the same tokens.
const openRouterPrice = 0.00042

// openRouterStream is an OpenRouter chat stream as OpenRouter documents
// it: the usage, with the price in usage.cost, arrives in the last chunk
// before [DONE].
var openRouterStream = []string{
	`{"id":"gen-1","object":"chat.completion.chunk","model":"openai/gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","model":"openai/gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
	`{"id":"gen-1","object":"chat.completion.chunk","model":"openai/gpt-4o-mini","choices":[],"usage":{"prompt_tokens":17,"completion_tokens":4,"total_tokens":21,"cost":` +
		strconv.FormatFloat(openRouterPrice, 'g', -1, 64) + `,"cost_details":{"upstream_inference_cost":null},"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
	`[DONE]`,
}

// TestProviderPriceIsTheCost: a streamed OpenRouter answer whose usage.cost
// arrives in the last chunk costs that price, with source provider, in
// the audit entry's cost object, in the usage record and in the budget's
// spend, whether the client speaks Chat Completions or Anthropic Messages
// (translated); the catalog's estimate of the same tokens is not used.
func TestProviderPriceIsTheCost(t *testing.T) {
	clearEnv(t)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, openRouterStream...)
	})
	block := "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), "cost.db") + "\n" +
		providerBlock("openrouter", "openrouter", "sk-or-prov-SECRET-5555", u.BaseURL())
	g := startGateway(t, block)
	waitProvidersListed(t)
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":1}`); res.Status != 200 {
		t.Fatalf("put budget: %d %s", res.Status, res.Body)
	}
	estimate, ok := catalog.Price("openrouter", "gpt-4o-mini", catalog.Usage{InputTokens: 17, OutputTokens: 4, TotalTokens: 21})
	if !ok || catalog.NanosOf(estimate.Total) == catalog.NanosOf(openRouterPrice) {
		t.Fatalf("the catalog's estimate %+v (%v) must differ from the provider's price", estimate, ok)
	}
	h := append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, "/team/app")
	chat := request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		append(h, "X-Request-Id", "or-chat-stream")...)
	if chat.Status != 200 {
		t.Fatalf("chat: %d %s", chat.Status, chat.Body)
	}
	msgs := request(t, "POST", g.URL+"/v1/messages",
		`{"model":"gpt-4o-mini","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		append(h, "X-Request-Id", "or-messages-stream")...)
	if msgs.Status != 200 {
		t.Fatalf("messages: %d %s", msgs.Status, msgs.Body)
	}

	entries, usage := auditRecords(t)
	for _, id := range []string{"or-chat-stream", "or-messages-stream"} {
		e := one(t, entries, id)
		c := e.Cost
		if c == nil || c.Total != openRouterPrice || c.Source != catalog.CostSourceProvider || c.Currency != "USD" ||
			c.Input == nil || c.Output == nil || catalog.NanosOf(*c.Input)+catalog.NanosOf(*c.Output) != catalog.NanosOf(openRouterPrice) {
			t.Fatalf("%s: audit cost %+v, want %v from the provider, split into input and output", id, c, openRouterPrice)
		}
		// Split in the catalog's proportions.
		if want := openRouterPrice * estimate.Input / estimate.Total; math.Abs(*c.Input-want) > 1e-9 {
			t.Errorf("%s: input cost %v, want %v", id, *c.Input, want)
		}
		us := usage[e.ID]
		if len(us) != 1 {
			t.Fatalf("%s: %d usage records", id, len(us))
		}
		r := us[0]
		if r.TotalCost == nil || *r.TotalCost != c.Total || r.CostSource != catalog.CostSourceProvider ||
			r.InputCost == nil || *r.InputCost != *c.Input || r.OutputCost == nil || *r.OutputCost != *c.Output {
			t.Fatalf("%s: usage record cost %v/%v/%v from %q, want the audit entry's", id, r.InputCost, r.OutputCost, r.TotalCost, r.CostSource)
		}
		if r.InputTokens != 17 || r.OutputTokens != 4 {
			t.Errorf("%s: tokens %+v", id, r.Usage)
		}
	}
	// The admin API shows the same cost object.
	res := adminCall(t, g, "GET", "/admin/audit/log/"+one(t, entries, "or-messages-stream").ID.String(), "")
	if res.Status != 200 {
		t.Fatalf("get entry: %d %s", res.Status, res.Body)
	}
	cost, _ := res.JSON(t)["cost"].(map[string]any)
	if cost == nil || cost["total"] != openRouterPrice || cost["source"] != "provider" || cost["currency"] != "USD" {
		t.Fatalf("admin entry cost %v", res.JSON(t)["cost"])
	}
	// The budget was charged the provider's price for each request.
	if got := budgetSpent(t, g, "/team", "daily"); catalog.NanosOf(got) != catalog.NanosOf(2*openRouterPrice) {
		t.Fatalf("budget spent %v, want %v", got, 2*openRouterPrice)
	}
	// And so do the usage views.
	sum := adminCall(t, g, "GET", "/admin/usage/summary?days=1", "")
	if sum.Status != 200 || sum.JSON(t)["total_cost"] != 2*openRouterPrice {
		t.Fatalf("usage summary: %d %s", sum.Status, sum.Body)
	}
	t.Logf("provider price %v USD per request (catalog estimate %.3g): audit entry, usage record, budget and summary agree", openRouterPrice, estimate.Total)
}
