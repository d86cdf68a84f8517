package e2e

import (
	"net/http"
	"testing"
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
