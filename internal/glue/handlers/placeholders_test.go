package handlers

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TestPlaceholders: the request state a stage creates is published on the
// request's replacer, and values learned later (by the proxy, after the
// answer) are what a placeholder reads at replacement time.
func TestPlaceholders(t *testing.T) {
	repl := caddy.NewReplacer()
	r := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	info, r2 := requestInfo(r)
	if reqinfo.From(r2.Context()) != info {
		t.Fatal("the request does not carry the state")
	}
	if again, r3 := requestInfo(r2); again != info || r3 != r2 {
		t.Fatal("a second stage made new state")
	}
	// Known but not learned yet: empty (ReplaceAll then writes its default).
	if got := repl.ReplaceAll("[{http.modelgate.user_path}|{http.modelgate.provider}]", "-"); got != "[-|-]" {
		t.Fatalf("before: %q", got)
	}
	info.UserPath, info.KeyID, info.SessionID = "/team/a", "k_1", "s-9"
	info.ProviderName, info.ResolvedModel = "openai", "gpt-4o"
	apierr.WriteFor(httptest.NewRecorder(), r2, apierr.New(429, apierr.TypeRateLimit, "slow down").WithCode("rate_limit_exceeded"))
	want := map[string]string{
		"user_path": "/team/a", "key_id": "k_1", "provider": "openai", "model": "gpt-4o",
		"error_code": "rate_limit_exceeded", "session_id": "s-9",
	}
	for name, v := range want {
		if got, ok := repl.GetString("http.modelgate." + name); !ok || got != v {
			t.Errorf("%s: %q %v, want %q", name, got, ok, v)
		}
	}
	if _, ok := repl.Get("http.modelgate.nope"); ok {
		t.Error("unknown placeholder answered")
	}
	if _, ok := repl.Get("http.request.method"); ok {
		t.Error("answered a placeholder outside http.modelgate.")
	}
}

// TestPlaceholdersWithoutReplacer: outside a Caddy server there is no
// replacer, and the state is still created.
func TestPlaceholdersWithoutReplacer(t *testing.T) {
	info, r := requestInfo(httptest.NewRequest("GET", "/health", nil))
	if info == nil || reqinfo.From(r.Context()) != info {
		t.Fatal("no state")
	}
}
