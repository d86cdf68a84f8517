package e2e

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

// TestChatReasoningOntoAnthropicRaisesTheCap: a chat request with
// reasoning_effort and a max_tokens below Anthropic's smallest thinking
// budget reaches Anthropic with extended thinking and the cap raised by
// that budget, instead of a 400; the audit entry records the change as a
// request revision. The reasoning object form maps the same way.
func TestChatReasoningOntoAnthropicRaisesTheCap(t *testing.T) {
	g, ups := startMatrixGateway(t)
	claude := "anth/" + claudeModel
	res := request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"`+claude+`","reasoning_effort":"low","max_tokens":300,"messages":[{"role":"user","content":"think"}]}`,
		append(bearer(masterKey), "X-Request-Id", "req-thinking")...)
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	sent := gjson.ParseBytes(ups.anth.Last(t, "/v1/messages").Body)
	if sent.Get("max_tokens").Int() != 1324 || sent.Get("thinking.type").Str != "enabled" || sent.Get("thinking.budget_tokens").Int() != 1024 {
		t.Fatalf("upstream got %s", sent.Raw)
	}
	entries, _ := auditRecords(t)
	e := entries["req-thinking"]
	if len(e) != 1 || len(e[0].Data.RequestRevisions) != 1 {
		t.Fatalf("entries %+v", e)
	}
	rv := e[0].Data.RequestRevisions[0]
	var detail map[string]int
	if err := json.Unmarshal(rv.Detail, &detail); err != nil || rv.Rewriter != "fit_thinking_budget" || rv.Seq != 1 ||
		detail["max_tokens_before"] != 300 || detail["max_tokens_after"] != 1324 || detail["thinking_budget"] != 1024 {
		t.Fatalf("revision %+v (%s)", rv, rv.Detail)
	}
	res = request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"`+claude+`","reasoning":{"effort":"medium"},"max_tokens":20000,"messages":[{"role":"user","content":"think"}]}`,
		bearer(masterKey)...)
	sent = gjson.ParseBytes(ups.anth.Last(t, "/v1/messages").Body)
	if res.Status != 200 || sent.Get("thinking.budget_tokens").Int() != 8192 || sent.Get("max_tokens").Int() != 20000 {
		t.Fatalf("reasoning object: %d, upstream got %s", res.Status, sent.Raw)
	}
}
