package e2e

// The resources of the admin API with their fields and types, and the
// operations on rate-limit rules with their effect on the rules'
// counters, checked through the public HTTP API.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

// checkTypes fails for every field of want missing from obj or of another
// JSON type. Kinds: string, integer, number, boolean, array, object, any;
// "?" after a kind lets the field be absent, "|null" lets it be null.
func checkTypes(t testing.TB, what string, obj map[string]any, want map[string]string) {
	t.Helper()
	for name, kind := range want {
		optional := strings.HasSuffix(kind, "?")
		kind = strings.TrimSuffix(kind, "?")
		kind, nullable := strings.CutSuffix(kind, "|null")
		v, ok := obj[name]
		if !ok {
			if !optional {
				t.Errorf("%s lacks %s: %v", what, name, obj)
			}
			continue
		}
		if v == nil && nullable {
			continue
		}
		if !jsonKind(v, kind) {
			t.Errorf("%s.%s is %#v, want %s", what, name, v, kind)
		}
	}
}

// jsonKind reports whether the decoded JSON value v is of kind.
func jsonKind(v any, kind string) bool {
	switch kind {
	case "any":
		return true
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// TestSpecResourcesFieldTypes: the model inventory entry with its access,
// model and metadata objects, the virtual model (a managed one included,
// whose timestamps are strings like a stored row's), the budget entry,
// the rate-limit rule and the audit entry with its usage, data and
// attempt objects carry every field the resources define, each of its
// type.
func TestSpecResourcesFieldTypes(t *testing.T) {
	clearEnv(t)
	t.Setenv("VIRTUAL_MODELS", `[{"source":"managed-alias","targets":[{"provider":"demo","model":"mock-chat"}]}]`)
	g := startGateway(t, mockBlock(""))

	// Model inventory.
	waitProvidersListed(t)
	res := adminCall(t, g, "GET", "/admin/models", "")
	var rows []map[string]any
	if res.Status != 200 || json.Unmarshal(res.Body, &rows) != nil || len(rows) == 0 {
		t.Fatalf("/admin/models: %d %s", res.Status, res.Body)
	}
	categories := map[string]bool{"all": true, "text_generation": true, "embedding": true, "image": true, "audio": true, "video": true, "utility": true}
	for _, r := range rows {
		what := fmt.Sprintf("inventory row %v", r["selector"])
		checkTypes(t, what, r, map[string]string{"access": "object", "model": "object", "provider_name": "string", "provider_type": "string", "selector": "string"})
		access, _ := r["access"].(map[string]any)
		checkTypes(t, what+" access", access, map[string]string{
			"default_enabled": "boolean", "effective_enabled": "boolean", "override": "object|null", "selector": "string", "user_paths": "array"})
		model, _ := r["model"].(map[string]any)
		checkTypes(t, what+" model", model, map[string]string{"id": "string", "object": "string", "created": "integer", "owned_by": "string", "metadata": "object?"})
		meta, _ := model["metadata"].(map[string]any)
		if meta == nil {
			continue
		}
		checkTypes(t, what+" metadata", meta, map[string]string{
			"capabilities": "object?", "categories": "array?", "context_window": "integer?", "description": "string?",
			"display_name": "string?", "family": "string?", "max_output_tokens": "integer?", "modes": "array?",
			"pricing": "object?", "pricing_sources": "object?", "rankings": "object?", "tags": "array?"})
		for k, v := range mapOf(meta["capabilities"]) {
			if !jsonKind(v, "boolean") {
				t.Errorf("%s capability %s is %#v", what, k, v)
			}
		}
		for _, c := range listOf(meta["categories"]) {
			if s, _ := c.(string); !categories[s] {
				t.Errorf("%s category %#v outside the enum", what, c)
			}
		}
	}

	// Virtual models: a stored row beside the managed one.
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"stored-alias","description":"d","session_affinity":false,"slowdown":1,`+
		`"targets":[{"provider":"demo","model":"mock-reasoner","weight":2}],"user_paths":["/team"]}`); res.Status != 200 {
		t.Fatalf("storing a virtual model: %d %s", res.Status, res.Body)
	}
	vms := listOf(adminCall(t, g, "GET", "/admin/virtual-models", "").JSON(t)["virtual_models"])
	if len(vms) != 2 {
		t.Fatalf("virtual models: %v", vms)
	}
	for _, v := range vms {
		row := mapOf(v)
		what := fmt.Sprintf("virtual model %v", row["source"])
		checkTypes(t, what, row, map[string]string{
			"created_at": "string", "updated_at": "string", "description": "string", "enabled": "boolean", "managed": "boolean",
			"model": "string", "provider_name": "string", "session_affinity": "boolean?", "slowdown": "number?",
			"source": "string", "strategy": "string", "targets": "array", "user_paths": "array"})
		for _, at := range []string{"created_at", "updated_at"} {
			if s, _ := row[at].(string); s != "" {
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					t.Errorf("%s.%s %q is not a timestamp", what, at, s)
				}
			}
		}
		for _, tg := range listOf(row["targets"]) {
			checkTypes(t, what+" target", mapOf(tg), map[string]string{"model": "string", "provider": "string", "weight": "number"})
		}
		if managed := row["source"] == "managed-alias"; row["managed"] != managed {
			t.Errorf("%s: managed %v", what, row["managed"])
		}
	}

	// Budget entry.
	if res := adminCall(t, g, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":10}`); res.Status != 200 {
		t.Fatalf("budget: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "POST", "/admin/budgets/reset-one", `{"user_path":"/team","period":"daily"}`); res.Status != 200 {
		t.Fatalf("budget reset-one: %d %s", res.Status, res.Body)
	}
	budgets := listOf(adminCall(t, g, "GET", "/admin/budgets", "").JSON(t)["budgets"])
	if len(budgets) != 1 {
		t.Fatalf("budgets %v", budgets)
	}
	checkTypes(t, "budget entry", mapOf(budgets[0]), map[string]string{
		"amount": "number", "created_at": "string", "effective_subject": "string", "has_usage": "boolean",
		"last_reset_at": "string", "per_child": "boolean", "period_end": "string", "period_label": "string",
		"period_ratio": "number", "period_seconds": "integer", "period_start": "string", "remaining": "number",
		"scope": "string", "source": "string", "spent": "number", "subject": "string", "updated_at": "string",
		"usage_ratio": "number", "user_path": "string"})

	// Rate-limit rule, written with the user_path shorthand.
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/team","period":"hour","max_requests":100,"max_tokens":1000}`); res.Status != 200 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	rule := rateRule(t, g, "user_path", "/team", "hour")
	checkTypes(t, "rate-limit rule", rule, map[string]string{
		"scope": "string", "subject": "string", "period": "string", "period_seconds": "integer",
		"per_child": "boolean", "max_tokens": "number", "source": "string"})
	if rule["source"] != "manual" || rule["period_seconds"] != 3600.0 {
		t.Errorf("rule %v", rule)
	}

	// Audit entry, through the managed alias.
	chat := `{"model":"managed-alias","max_tokens":20,"temperature":0.5,"messages":[{"role":"user","content":"typed"}]}`
	if res := request(t, "POST", g.URL+"/v1/chat/completions", chat, append(bearer(masterKey), "X-Session-Id", "typed-session", userPathHeader, "/team")...); res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	log := listOf(adminCall(t, g, "GET", "/admin/audit/log?session_id=typed-session", "").JSON(t)["entries"])
	if len(log) != 1 {
		t.Fatalf("audit log: %v", log)
	}
	conv := adminCall(t, g, "GET", "/admin/audit/conversation?log_id="+mapOf(log[0])["id"].(string), "").JSON(t)
	checkTypes(t, "conversation", conv, map[string]string{"anchor_id": "string", "entries": "array", "truncated": "boolean"})
	entries := listOf(conv["entries"])
	if len(entries) != 1 {
		t.Fatalf("conversation entries: %v", entries)
	}
	e := mapOf(entries[0])
	checkTypes(t, "audit entry", e, map[string]string{
		"id": "string", "request_id": "string", "session_id": "string", "workflow_version_id": "string",
		"timestamp": "string", "method": "string", "path": "string", "status_code": "integer", "duration_ns": "integer",
		"stream": "boolean", "alias_used": "boolean", "auth_key_id": "string", "auth_method": "string",
		"principal_id": "string", "client_ip": "string", "bodies_omitted": "boolean", "secrets_redacted": "integer", "conversation_payload": "boolean",
		"cache_type": "string", "error_type": "string", "provider": "string", "provider_name": "string",
		"requested_model": "string", "resolved_model": "string", "user_path": "string", "usage": "object", "data": "object"})
	if e["alias_used"] != true || e["requested_model"] != "managed-alias" || e["resolved_model"] != "mock-chat" || e["session_id"] != "typed-session" {
		t.Errorf("audit entry %v", e)
	}
	checkTypes(t, "audit usage", mapOf(e["usage"]), map[string]string{
		"cache_write_input_tokens": "integer", "cached_input_ratio": "number", "cached_input_tokens": "integer",
		"entries": "integer", "estimated_cached_characters": "integer", "input_tokens": "integer", "output_tokens": "integer",
		"rewrite_cost_saved": "number", "rewrite_tokens_saved": "integer", "total_tokens": "integer", "uncached_input_tokens": "integer"})
	data := mapOf(e["data"])
	checkTypes(t, "audit data", data, map[string]string{
		"api_key_hash": "string", "attempts": "array", "error_code": "string", "error_message": "string", "event_type": "string",
		"failover": "object?", "labels": "array", "max_tokens": "integer", "request_body": "any",
		"request_body_too_big_to_handle": "boolean", "request_headers": "object", "request_revisions": "array",
		"response_body": "any", "response_body_too_big_to_handle": "boolean", "response_headers": "object",
		"temperature": "number", "user_agent": "string", "workflow_features": "object"})
	checkTypes(t, "workflow features", mapOf(data["workflow_features"]), map[string]string{
		"audit": "boolean", "budget": "boolean", "cache": "boolean", "failover": "boolean", "guardrails": "boolean", "usage": "boolean"})
	// A request without max_tokens or temperature, and without failover,
	// leaves those fields out rather than null.
	plain := `{"model":"mock-chat","messages":[{"role":"user","content":"plain"}]}`
	if res := request(t, "POST", g.URL+"/v1/chat/completions", plain, append(bearer(masterKey), "X-Session-Id", "plain-session")...); res.Status != 200 {
		t.Fatalf("plain chat: %d %s", res.Status, res.Body)
	}
	plainLog := listOf(adminCall(t, g, "GET", "/admin/audit/log?session_id=plain-session", "").JSON(t)["entries"])
	if len(plainLog) != 1 {
		t.Fatalf("audit log: %v", plainLog)
	}
	plainEntry := adminCall(t, g, "GET", "/admin/audit/log/"+mapOf(plainLog[0])["id"].(string), "").JSON(t)
	checkTypes(t, "audit data of a plain request", mapOf(plainEntry["data"]), map[string]string{
		"failover": "object?", "max_tokens": "integer?", "temperature": "number?"})
	attempts := listOf(data["attempts"])
	if len(attempts) != 1 {
		t.Fatalf("attempts %v", attempts)
	}
	checkTypes(t, "attempt", mapOf(attempts[0]), map[string]string{
		"duration_ns": "integer", "error_code": "string", "error_message": "string", "error_type": "string", "kind": "string",
		"model": "string", "provider_name": "string", "provider_type": "string", "response_body": "any",
		"response_headers": "object", "seq": "integer", "started_at": "string", "status_code": "integer", "success": "boolean"})
}

// TestSpecResourcesRuleOperations: editing only a rule's caps keeps its
// counters; editing its period (naming the rule as previous) recreates
// it under the new key with fresh counters and removes the old one;
// reset-one clears only the named rule; reset-all needs the confirmation
// word reset exactly and clears every rule; a deleted rule's counters
// are gone when it is written again; provider and model subjects match
// case-insensitively, a bare model id on any provider.
func TestSpecResourcesRuleOperations(t *testing.T) {
	g := startMockGateway(t)
	put := func(body string) {
		t.Helper()
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status != 200 {
			t.Fatalf("PUT %s: %d %s", body, res.Status, res.Body)
		}
	}
	used := func(scope, subject, period string) (float64, float64) {
		t.Helper()
		r := rateRule(t, g, scope, subject, period)
		req, _ := r["requests_used"].(float64)
		tok, _ := r["tokens_used"].(float64)
		return req, tok
	}
	chat := func(n int) {
		t.Helper()
		for range n {
			if res := chatAs(t, g, "/ops/app"); res.Status != 200 {
				t.Fatalf("chat: %d %s", res.Status, res.Body)
			}
		}
	}
	put(`{"user_path":"/ops","period":"minute","max_requests":10}`)
	put(`{"scope":"provider","subject":"DEMO","period":"hour","max_requests":100}`)
	put(`{"scope":"model","subject":"Mock-Chat","period":"hour","max_requests":100}`)
	chat(2)
	waitTokensUsed(t, g, "user_path", "/ops", "minute", 12)
	if r, _ := used("provider", "demo", "hour"); r != 2 {
		t.Fatalf("provider rule written as DEMO counted %v requests, want 2", r)
	}
	if r, _ := used("model", "mock-chat", "hour"); r != 2 {
		t.Fatalf("bare model rule written as Mock-Chat counted %v requests, want 2", r)
	}

	// Only the caps change: the counters stay.
	put(`{"user_path":"/ops","period":"minute","max_requests":20,"max_tokens":5000}`)
	if r, tok := used("user_path", "/ops", "minute"); r != 2 || tok != 12 {
		t.Fatalf("after a caps edit: %v requests, %v tokens, want 2 and 12", r, tok)
	}

	// The period changes: a new rule with fresh counters, the old one gone.
	put(`{"user_path":"/ops","period":"hour","max_requests":20,"previous":{"scope":"user_path","subject":"/ops","period":"minute"}}`)
	if r, tok := used("user_path", "/ops", "hour"); r != 0 || tok != 0 {
		t.Fatalf("the re-keyed rule starts at %v requests, %v tokens", r, tok)
	}
	for _, v := range adminCall(t, g, "GET", "/admin/rate-limits", "").JSON(t)["rules"].([]any) {
		if r := v.(map[string]any); r["subject"] == "/ops" && r["period"] == "minute" {
			t.Fatalf("the old rule is still listed: %v", r)
		}
	}
	chat(1)

	// reset-one clears that rule only.
	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"scope":"user_path","subject":"/ops","period":"hour"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	if r, tok := used("user_path", "/ops", "hour"); r != 0 || tok != 0 {
		t.Fatalf("after reset-one: %v requests, %v tokens", r, tok)
	}
	if r, _ := used("provider", "demo", "hour"); r != 3 {
		t.Fatalf("reset-one of another rule touched the provider rule: %v requests, want 3", r)
	}

	// reset-all needs the word reset, exactly.
	for _, body := range []string{`{}`, `{"confirmation":"RESET"}`, `{"confirmation":"yes"}`} {
		adminCall(t, g, "POST", "/admin/rate-limits/reset", body).ExpectErr(t, 400, "invalid_request_error", "confirmation_required")
	}
	if r, _ := used("provider", "demo", "hour"); r != 3 {
		t.Fatalf("a refused reset cleared counters: %v", r)
	}
	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset", `{"confirmation":"reset"}`); res.Status != 200 {
		t.Fatalf("reset: %d %s", res.Status, res.Body)
	}
	for _, k := range [][3]string{{"user_path", "/ops", "hour"}, {"provider", "demo", "hour"}, {"model", "mock-chat", "hour"}} {
		if r, tok := used(k[0], k[1], k[2]); r != 0 || tok != 0 {
			t.Fatalf("after reset-all %v: %v requests, %v tokens", k, r, tok)
		}
	}

	// Deleting a rule drops its counters.
	chat(1)
	if res := adminCall(t, g, "DELETE", "/admin/rate-limits", `{"scope":"provider","subject":"Demo","period":"hour"}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	put(`{"scope":"provider","subject":"demo","period":"hour","max_requests":100}`)
	if r, tok := used("provider", "demo", "hour"); r != 0 || tok != 0 {
		t.Fatalf("a deleted rule written again starts at %v requests, %v tokens", r, tok)
	}
}

// TestSpecResourcesTemplateReset: resetting or deleting a per_child
// template clears every child's request and token windows; a child's
// concurrency slot held by a request in flight is not freed by the reset
// but when that request finishes, and never twice.
func TestSpecResourcesTemplateReset(t *testing.T) {
	clearEnv(t)
	slow := newSlowUpstream(t, 100*time.Millisecond, 100)
	g := startGateway(t, mockBlock("entitlements quota_templates\n"+slow.block("slow")))
	put := func(body string) {
		t.Helper()
		if res := adminCall(t, g, "PUT", "/admin/rate-limits", body); res.Status != 200 {
			t.Fatalf("PUT %s: %d %s", body, res.Status, res.Body)
		}
	}
	// child returns the requests, tokens and in-flight count /v1/usage
	// shows a child for the template of period.
	child := func(path, period string) (req, tok, inFlight float64) {
		t.Helper()
		u := request(t, "GET", g.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, path)...)
		for _, v := range listOf(u.JSON(t)["rate_limits"]) {
			if r := mapOf(v); r["period"] == period {
				req, _ = r["requests_used"].(float64)
				tok, _ = r["tokens_used"].(float64)
				inFlight, _ = r["in_flight"].(float64)
				return
			}
		}
		t.Fatalf("no %s template for %s: %s", period, path, u.Body)
		return
	}
	waitChildTokens := func(path string, want float64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, tok, _ := child(path, "minute"); tok == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never reached %v tokens", path, want)
			}
		}
	}
	template := `{"user_path":"/cust","period":"minute","max_requests":1,"max_tokens":1000,"per_child":true}`
	put(template)
	for _, p := range []string{"/cust/a", "/cust/b"} {
		if res := chatAs(t, g, p); res.Status != 200 {
			t.Fatalf("%s: %d %s", p, res.Status, res.Body)
		}
		chatAs(t, g, p).ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
		waitChildTokens(p, 6)
	}

	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"scope":"user_path","subject":"/cust","period":"minute"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	for _, p := range []string{"/cust/a", "/cust/b"} {
		if r, tok, _ := child(p, "minute"); r != 0 || tok != 0 {
			t.Fatalf("%s after the template's reset: %v requests, %v tokens", p, r, tok)
		}
		if res := chatAs(t, g, p); res.Status != 200 {
			t.Fatalf("%s after the reset: %d %s", p, res.Status, res.Body)
		}
	}
	waitChildTokens("/cust/a", 6)

	if res := adminCall(t, g, "DELETE", "/admin/rate-limits", `{"user_path":"/cust","period":"minute"}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	put(template)
	for _, p := range []string{"/cust/a", "/cust/b"} {
		if r, tok, _ := child(p, "minute"); r != 0 || tok != 0 {
			t.Fatalf("%s after the template was deleted and written again: %v requests, %v tokens", p, r, tok)
		}
	}

	// A concurrency template: the slot of a stream in flight outlives the
	// reset and is released once, when the stream ends.
	put(`{"user_path":"/live","period":"concurrent","max_requests":1,"per_child":true}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, _ := openStream(t, ctx, g, "slow/slow-model", "/live/a")
	if resp.StatusCode != 200 {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	if res := adminCall(t, g, "POST", "/admin/rate-limits/reset-one", `{"scope":"user_path","subject":"/live","period":"concurrent"}`); res.Status != 200 {
		t.Fatalf("reset-one: %d %s", res.Status, res.Body)
	}
	if _, _, n := child("/live/a", "concurrent"); n != 1 {
		t.Fatalf("in flight after the reset: %v, want the stream's 1", n)
	}
	chatAs(t, g, "/live/a").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := chatAs(t, g, "/live/b"); res.Status != 200 {
		t.Fatalf("another child: %d %s", res.Status, res.Body)
	}
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, _, n := child("/live/a", "concurrent")
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream's slot is still held: %v", n)
		}
	}
	// Released once: the cap is still one.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	resp2, _ := openStream(t, ctx2, g, "slow/slow-model", "/live/a")
	if resp2.StatusCode != http.StatusOK {
		t.Fatalf("stream after the release: %d", resp2.StatusCode)
	}
	defer resp2.Body.Close()
	chatAs(t, g, "/live/a").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")

	// Deleted and written again while that stream runs: the new template
	// counts only what it admitted, and the old stream's end releases
	// nothing of it.
	if res := adminCall(t, g, "DELETE", "/admin/rate-limits", `{"user_path":"/live","period":"concurrent"}`); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	put(`{"user_path":"/live","period":"concurrent","max_requests":1,"per_child":true}`)
	ctx3, cancel3 := context.WithCancel(context.Background())
	defer cancel3()
	resp3, _ := openStream(t, ctx3, g, "slow/slow-model", "/live/a")
	if resp3.StatusCode != http.StatusOK {
		t.Fatalf("stream under the template written again: %d", resp3.StatusCode)
	}
	defer resp3.Body.Close()
	cancel2()
	// The audit entry is written after the rate-limit stage let go of the
	// request: once the old stream's entry is there, its slot is released.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		m := adminCall(t, g, "GET", "/admin/audit/log?user_path=/live/a&status=499", "").JSON(t)
		if m["total"] == 2.0 { // the first stream, cancelled earlier, and this one
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first stream's end was never recorded: %v", m)
		}
	}
	if _, _, n := child("/live/a", "concurrent"); n != 1 {
		t.Fatalf("in flight after the old stream ended: %v, want the new stream's 1", n)
	}
	chatAs(t, g, "/live/a").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
}

// TestSpecResourcesManagedOverridesStored: a managed virtual model (from
// VIRTUAL_MODELS) overrides a stored row of the same source, which the
// admin API can then neither change nor delete; the stored row is in
// force again once the configuration no longer declares the source.
func TestSpecResourcesManagedOverridesStored(t *testing.T) {
	g := startMockGateway(t)
	if res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"shared","description":"stored","targets":[{"provider":"demo","model":"mock-reasoner"}]}`); res.Status != 200 {
		t.Fatalf("storing: %d %s", res.Status, res.Body)
	}
	served := func() string {
		t.Helper()
		res := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"shared","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("chat: %d %s", res.Status, res.Body)
		}
		return fmt.Sprint(res.JSON(t)["model"])
	}
	rows := func() []any {
		t.Helper()
		return listOf(adminCall(t, g, "GET", "/admin/virtual-models", "").JSON(t)["virtual_models"])
	}
	if m := served(); m != "mock-reasoner" {
		t.Fatalf("the stored row routes to %s", m)
	}

	t.Setenv("VIRTUAL_MODELS", `[{"source":"shared","description":"managed","targets":[{"provider":"demo","model":"mock-chat"}]}]`)
	if err := g.reload(t, mockBlock("")); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	waitHealthy(t, g.URL)
	if l := rows(); len(l) != 1 || mapOf(l[0])["managed"] != true || mapOf(l[0])["description"] != "managed" {
		t.Fatalf("rows with the managed one declared: %v", l)
	}
	if m := served(); m != "mock-chat" {
		t.Fatalf("the managed row routes to %s", m)
	}
	adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"shared","targets":[{"provider":"demo","model":"mock-reasoner"}]}`).
		ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")
	adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"other","old_source":"shared","targets":[{"provider":"demo","model":"mock-reasoner"}]}`).
		ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")
	adminCall(t, g, "DELETE", "/admin/virtual-models/shared", "").ExpectErr(t, 409, "invalid_request_error", "virtual_model_managed")

	t.Setenv("VIRTUAL_MODELS", "")
	if err := g.reload(t, mockBlock("")); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	waitHealthy(t, g.URL)
	if l := rows(); len(l) != 1 || mapOf(l[0])["managed"] != false || mapOf(l[0])["description"] != "stored" {
		t.Fatalf("rows once the configuration dropped it: %v", l)
	}
	if m := served(); m != "mock-reasoner" {
		t.Fatalf("the stored row routes to %s again", m)
	}
}

// mapOf is v as a JSON object, nil when it is not one.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// listOf is v as a JSON array, nil when it is not one.
func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}
