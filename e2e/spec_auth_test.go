package e2e

// Authentication: what managed keys without dashboard access may use,
// limits per key through the key's user path, and the dashboard's pages
// and assets, which need no key, checked through the public HTTP API and
// the official SDKs.

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// TestSpecAuthManagedKeyModelEndpoints: a managed key created without
// dashboard access (the default) works on the model endpoints through
// the official OpenAI and Anthropic SDKs and on GET /v1/usage, and is
// refused on /admin/* with 403 dashboard_access_denied.
func TestSpecAuthManagedKeyModelEndpoints(t *testing.T) {
	g := startMockGateway(t)
	k := createKey(t, g, `{"name":"app"}`)
	if k.View["dashboard_access"] != false {
		t.Fatalf("a key created without dashboard_access: %v", k.View)
	}
	ctx := context.Background()
	oa := openaiClient(g, k.Secret)
	chat, err := oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "mock-chat", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("managed")}})
	if err != nil || chat.Choices[0].Message.Content != "Echo: managed" {
		t.Fatalf("chat: %v %+v", err, chat)
	}
	if page, err := oa.Models.List(ctx); err != nil || len(page.Data) == 0 {
		t.Fatalf("models: %v", err)
	}
	if emb, err := oa.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "mock-embedding",
		Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")}}); err != nil || len(emb.Data) != 1 {
		t.Fatalf("embeddings: %v", err)
	}
	ac := anthropicClient(g, k.Secret)
	msg, err := ac.Messages.New(ctx, anthropic.MessageNewParams{
		Model: "mock-chat", MaxTokens: 16, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("managed"))}})
	if err != nil || len(msg.Content) == 0 {
		t.Fatalf("messages: %v %+v", err, msg)
	}
	if res := request(t, "GET", g.URL+"/v1/usage", "", bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("usage: %d %s", res.Status, res.Body)
	}
	for _, p := range []string{"/admin/models", "/admin/usage/summary", "/admin/rate-limits", "/admin/auth-keys"} {
		request(t, "GET", g.URL+p, "", bearer(k.Secret)...).ExpectErr(t, 403, "authentication_error", "dashboard_access_denied")
	}
	request(t, "POST", g.URL+"/admin/rate-limits/reset", `{"confirmation":"reset"}`, bearer(k.Secret)...).
		ExpectErr(t, 403, "authentication_error", "dashboard_access_denied")
	// The SDK sees the refusal of an invalid key as a 401 gateway error.
	bad := openaiClient(g, k.Secret+"x")
	_, err = bad.Models.List(ctx)
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 401 || oe.Type != "authentication_error" {
		t.Fatalf("an invalid key: %v", err)
	}
}

// TestSpecAuthPerKeyLimits: a managed key bound to its own user path is
// limited by the rules on that path: its requests count there whatever
// user-path header it sends, so one key exhausting its rule leaves
// another key's rule untouched, and each key's GET /v1/usage shows its
// own counters.
func TestSpecAuthPerKeyLimits(t *testing.T) {
	g := startMockGateway(t)
	a := createKey(t, g, `{"name":"a","user_path":"/keys/a"}`)
	b := createKey(t, g, `{"name":"b","user_path":"/keys/b"}`)
	for _, p := range []string{"/keys/a", "/keys/b"} {
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"`+p+`","period":"minute","max_requests":1}`); res.Status != 200 {
			t.Fatalf("rule on %s: %d %s", p, res.Status, res.Body)
		}
	}
	chat := func(key, header string) response {
		t.Helper()
		return request(t, "POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(key), userPathHeader, header)...)
	}
	if res := chat(a.Secret, "/elsewhere"); res.Status != 200 {
		t.Fatalf("key a: %d %s", res.Status, res.Body)
	}
	chat(a.Secret, "/keys/b").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	chat(a.Secret, "").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := chat(b.Secret, ""); res.Status != 200 {
		t.Fatalf("key b after key a's limit: %d %s", res.Status, res.Body)
	}
	for key, want := range map[string]string{a.Secret: "/keys/a", b.Secret: "/keys/b"} {
		u := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(key), userPathHeader, "/keys")...).JSON(t)
		rl := listOf(u["rate_limits"])
		if u["user_path"] != want || len(rl) != 1 || mapOf(rl[0])["subject"] != want || mapOf(rl[0])["requests_used"] != 1.0 {
			t.Fatalf("usage of the key bound to %s: %v", want, u)
		}
	}
}

// TestSpecAuthDashboardPagesOpen: the dashboard pages and every static
// asset they load answer without a credential, and with a wrong one,
// while the admin data they show still needs a key.
func TestSpecAuthDashboardPagesOpen(t *testing.T) {
	g := startMockGateway(t)
	assets := map[string]bool{}
	for _, page := range []string{"/admin/dashboard", "/admin/dashboard/audit"} {
		for _, headers := range [][]string{nil, bearer("wrong-key")} {
			res := request(t, "GET", g.URL+page, "", headers...)
			if res.Status != 200 {
				t.Fatalf("%s (%v): %d %s", page, headers, res.Status, res.Body)
			}
			for _, m := range regexp.MustCompile(`/admin/static/[^"'?#\s]+`).FindAllString(string(res.Body), -1) {
				assets[m] = true
			}
		}
	}
	if len(assets) == 0 {
		t.Fatal("the pages load no static asset")
	}
	for a := range assets {
		if res := request(t, "GET", g.URL+a, ""); res.Status != 200 {
			t.Errorf("%s without a credential: %d", a, res.Status)
		}
	}
	request(t, "GET", g.URL+"/admin/runtime/config", "").ExpectErr(t, 401, "authentication_error", "missing_api_key")
	request(t, "GET", g.URL+"/admin/runtime/config", "", bearer("wrong-key")...).ExpectErr(t, 401, "authentication_error", "invalid_api_key")
}
