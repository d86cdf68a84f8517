package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// TestCrossEndpointPassthroughModelAccess: a passthrough call whose JSON
// body names a model is held to the access policies as the model
// endpoints are: a model a policy keeps from the caller's path answers
// 403 model_access_denied on /p/<provider>/... too and never reaches the
// upstream, while a caller the policy admits is relayed.
func TestCrossEndpointPassthroughModelAccess(t *testing.T) {
	clearEnv(t)
	up := newRecordingUpstream(t, passthroughUpstream)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "oai")
	cfg := writeFile(t, "access.yaml", `virtual_models:
  - source: oai/gpt-4o-mini
    user_paths: [/team]
`)
	g := startGateway(t, "master_key "+masterKey+"\nconfig_file "+cfg+"\n"+
		providerBlock("oai", "openai", "sk-pt-upstream", up.URL+"/v1", "models gpt-4o-mini", "models_mode allowlist"))
	body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`

	// The chat endpoint refuses the model outside /team ...
	request(t, "POST", g.URL+"/v1/chat/completions", body, append(bearer(masterKey), userPathHeader, "/other")...).
		ExpectErr(t, http.StatusForbidden, "invalid_request_error", "model_access_denied")
	n := up.count()
	// ... and so does passthrough, before the upstream.
	request(t, "POST", g.URL+"/p/oai/v1/chat/completions", body,
		append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, "/other")...).
		ExpectErr(t, http.StatusForbidden, "invalid_request_error", "model_access_denied")
	if up.count() != n {
		t.Errorf("a denied passthrough call reached the upstream: %+v", up.last(t))
	}
	// Under /team the same call is relayed.
	if res := request(t, "POST", g.URL+"/p/oai/v1/chat/completions", body,
		append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, "/team/app")...); res.Status != 200 {
		t.Errorf("under /team: %d %s", res.Status, res.Body)
	}
}

// TestCrossEndpointPassthroughProviderPolicy: a passthrough call whose
// model the gateway does not read (a multipart form, a listing) is held
// to the policy covering every model of its provider: a caller that
// policy keeps out cannot transcribe or list through /p/<provider>/...
// what /v1/audio/transcriptions refuses it, and a caller it admits can.
// A policy on one model only leaves such calls alone.
func TestCrossEndpointPassthroughProviderPolicy(t *testing.T) {
	clearEnv(t)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "demo,other")
	cfg := writeFile(t, "access.yaml", `virtual_models:
  - source: demo/*
    user_paths: [/team]
  - source: other/mock-chat
    enabled: false
`)
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"+providerBlock("other", "mock", "", "")))
	// Both providers list mock-transcribe: the bare name goes to demo, the
	// first of them, once both listings are in (before that, to the first
	// that has listed it, which may be other).
	waitProvidersListed(t)
	k := createKey(t, g, `{"name":"outsider","user_path":"/other"}`)
	transcribe := func(path, key string) response {
		body, ct := multipartBody(t, map[string]string{"model": "mock-transcribe"})
		return request(t, "POST", g.URL+path, body, append(bearer(key), "Content-Type", ct)...)
	}
	transcribe("/v1/audio/transcriptions", k.Secret).ExpectErr(t, http.StatusForbidden, "invalid_request_error", "model_access_denied")
	transcribe("/p/demo/v1/audio/transcriptions", k.Secret).ExpectErr(t, http.StatusForbidden, "invalid_request_error", "model_access_denied")
	request(t, "GET", g.URL+"/p/demo/v1/models", "", bearer(k.Secret)...).
		ExpectErr(t, http.StatusForbidden, "invalid_request_error", "model_access_denied")

	team := createKey(t, g, `{"name":"member","user_path":"/team/app"}`)
	if res := transcribe("/p/demo/v1/audio/transcriptions", team.Secret); res.Status != 200 {
		t.Errorf("under /team: %d %s", res.Status, res.Body)
	}
	// A policy on one model of a provider does not cover its other calls.
	if res := transcribe("/p/other/v1/audio/transcriptions", k.Secret); res.Status != 200 {
		t.Errorf("a one-model policy refused a call without a model: %d %s", res.Status, res.Body)
	}
}

// TestCrossEndpointPassthroughBudget: a caller whose budget is spent is
// refused on passthrough as on the model endpoints: a JSON body naming a
// priced model, and a call whose model the gateway does not read (a
// multipart transcription, a batch of the provider's own), which may run
// any priced model, get 429 budget_exceeded with Retry-After and never
// reach the provider. A read (GET) runs no model and is relayed, as are
// another path's calls.
func TestCrossEndpointPassthroughBudget(t *testing.T) {
	clearEnv(t)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "openai")
	g, _ := startBudgetGateway(t, filepath.Join(t.TempDir(), "budgets.db"))
	// The amount fits one request's reservation, not its real cost.
	amount := strconv.FormatFloat(0.8*replayChatCost(t), 'g', -1, 64)
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":`+amount+`}`); res.Status != 200 {
		t.Fatalf("put: %d %s", res.Status, res.Body)
	}
	if res := budgetChatAs(t, g, "/team", budgetChat); res.Status != 200 {
		t.Fatalf("spending: %d %s", res.Status, res.Body)
	}
	budgetChatAs(t, g, "/team", budgetChat).ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")

	h := append(bearer(masterKey), userPathHeader, "/team")
	body, ct := multipartBody(t, map[string]string{"model": "whisper-1"})
	for _, c := range []struct{ name, path, ct, body string }{
		{"priced model", "/p/openai/v1/chat/completions", "application/json", budgetChat},
		{"form", "/p/openai/v1/audio/transcriptions", ct, body},
		{"provider batch", "/p/openai/v1/batches", "application/json",
			`{"input_file_id":"file-1","endpoint":"/v1/chat/completions","completion_window":"24h"}`},
	} {
		res := request(t, "POST", g.URL+c.path, c.body, append(h, "Content-Type", c.ct)...)
		res.ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
		if res.Header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", c.name)
		}
	}
	if res := request(t, "GET", g.URL+"/p/openai/v1/models", "", h...); res.Status == 429 {
		t.Errorf("a read over budget: %d %s", res.Status, res.Body)
	}
	// Outside /team the budget does not apply: the call reaches the
	// provider (whose replay knows no such route).
	if res := request(t, "POST", g.URL+"/p/openai/v1/batches", `{"input_file_id":"file-1"}`,
		append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, "/other")...); res.Status == 429 {
		t.Errorf("outside the budget: %d %s", res.Status, res.Body)
	}
}

// TestCrossEndpointRealtimeFailover: a failover route applies to a
// realtime session as to the other model endpoints: when the primary's
// handshake answers 503, the session opens on the route's target instead,
// and both tries are the entry's attempts.
func TestCrossEndpointRealtimeFailover(t *testing.T) {
	clearEnv(t)
	up := newFakeRealtime(t)
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"gpt-rt","object":"model","owned_by":"openai"}]}`))
			return
		}
		http.Error(w, `{"error":{"message":"down","type":"server_error"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(dead.Close)
	cfg := writeFile(t, "failover.yaml", "failover:\n  a/gpt-rt: [b/gpt-rt]\n")
	g := startGateway(t, mockBlock("config_file "+cfg+"\n"+
		providerBlock("a", "openai", "sk-upstream", dead.URL+"/v1")+
		providerBlock("b", "openai", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-rt", "b/gpt-rt")

	c, resp, err := dialRealtime(t, g, "a/gpt-rt", "")
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	if typ, _ := readWSEvent(t, c); typ != "session.created" {
		t.Fatalf("first event %q", typ)
	}
	if p := resp.Header.Get("X-Modelgate-Provider"); p != "" && p != "b" {
		t.Errorf("served by %q", p)
	}
	_ = c.Close(1000, "done")

	// The entry is written when the session ends.
	var e *audit.Entry
	poll(t, 5*time.Second, "an audit entry for the session", func() bool {
		entries, _ := auditRecords(t)
		for _, es := range entries {
			for _, x := range es {
				if x.Path == "/v1/realtime" {
					e = x
				}
			}
		}
		return e != nil
	})
	at := e.Data.Attempts
	if len(at) != 2 || at[0].ProviderName != "a" || at[0].StatusCode != 503 ||
		at[1].ProviderName != "b" || at[1].Kind != "failover" || e.ProviderName != "b" {
		t.Errorf("entry provider %s, attempts %+v", e.ProviderName, at)
	}
}
