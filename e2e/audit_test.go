package e2e

// The audit stage end to end: each outcome of a request leaves exactly one
// audit entry whose fields match what happened, a usage record when a
// provider answered, and no credential anywhere in the store file.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/caddyserver/caddy/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// runningApp returns the modelgate app of the running gateway.
func runningApp(t *testing.T) *caddymodule.App {
	t.Helper()
	v, err := caddy.ActiveContext().App("modelgate")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*caddymodule.App)
}

// auditRecords flushes the store and returns every audit entry (bodies
// included) and usage record, keyed by the entry's request id, and the
// usage records by entry id.
func auditRecords(t *testing.T) (map[string][]*audit.Entry, map[audit.ID][]*audit.UsageRecord) {
	t.Helper()
	app := runningApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := app.AuditStorage().Flush(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := app.AuditQueries().List(audit.EntryQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string][]*audit.Entry{}
	for _, listed := range page.Entries {
		e, err := app.AuditQueries().Get(listed.ID.String())
		if err != nil {
			t.Fatal(err)
		}
		entries[e.RequestID] = append(entries[e.RequestID], e)
	}
	usage := map[audit.ID][]*audit.UsageRecord{}
	err = app.AuditStorage().UsageRecords(time.Time{}, time.Now().Add(time.Hour), func(u *audit.UsageRecord) bool {
		usage[u.RequestID] = append(usage[u.RequestID], u)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries, usage
}

// one returns the single entry of request id, failing unless exactly one.
func one(t *testing.T, entries map[string][]*audit.Entry, id string) *audit.Entry {
	t.Helper()
	if n := len(entries[id]); n != 1 {
		t.Fatalf("request %s left %d entries, want 1", id, n)
	}
	return entries[id][0]
}

// checkEntry checks the fields every entry of an answered request has.
func checkEntry(t *testing.T, e *audit.Entry, status int, provider, providerName, requested, resolved string) {
	t.Helper()
	if e.StatusCode != status || e.Provider != provider || e.ProviderName != providerName ||
		e.RequestedModel != requested || e.ResolvedModel != resolved {
		t.Errorf("%s: status %d provider %q/%q models %q→%q; want %d %q/%q %q→%q", e.RequestID, e.StatusCode,
			e.Provider, e.ProviderName, e.RequestedModel, e.ResolvedModel, status, provider, providerName, requested, resolved)
	}
	if e.Method != "POST" || e.DurationNs <= 0 || e.Timestamp.IsZero() || e.ID.IsZero() || e.ClientIP != "127.0.0.1" {
		t.Errorf("%s: method %q duration %d timestamp %v client %q", e.RequestID, e.Method, e.DurationNs, e.Timestamp, e.ClientIP)
	}
	if e.Data == nil || !e.Data.WorkflowFeatures.Audit || !e.Data.WorkflowFeatures.Usage || e.Data.EventType != "request" {
		t.Fatalf("%s: data %+v", e.RequestID, e.Data)
	}
	if e.Data.UserAgent == "" || e.Data.RequestBody == nil {
		t.Errorf("%s: user agent %q, request body %s", e.RequestID, e.Data.UserAgent, e.Data.RequestBody)
	}
	for name, v := range e.Data.RequestHeaders {
		if name == "authorization" || name == "x-api-key" {
			if v != audit.Redacted {
				t.Errorf("%s: header %s = %q", e.RequestID, name, v)
			}
		}
	}
}

// checkUsage checks the usage record of e against the provider's token
// counts and the catalog's price.
func checkUsage(t *testing.T, e *audit.Entry, recs []*audit.UsageRecord, providerType string, input, output int64) {
	t.Helper()
	if len(recs) != 1 {
		t.Fatalf("%s: %d usage records, want 1", e.RequestID, len(recs))
	}
	u := recs[0]
	if u.InputTokens != input || u.OutputTokens != output || e.Usage.InputTokens != input || e.Usage.OutputTokens != output {
		t.Errorf("%s: usage record %d/%d entry %d/%d, want %d/%d", e.RequestID, u.InputTokens, u.OutputTokens,
			e.Usage.InputTokens, e.Usage.OutputTokens, input, output)
	}
	if u.ProviderType != providerType || u.Model != e.ResolvedModel || u.Endpoint != e.Path || u.SessionID != e.SessionID ||
		u.UserPath != e.UserPath {
		t.Errorf("%s: usage record %+v", e.RequestID, u)
	}
	want, priced := catalog.Price(providerType, e.ResolvedModel, u.Usage)
	switch {
	case !priced && u.TotalCost != nil:
		t.Errorf("%s: unpriced model has cost %v", e.RequestID, *u.TotalCost)
	case priced && (u.TotalCost == nil || math.Abs(*u.TotalCost-want.Total) > 1e-12 || want.Total <= 0):
		t.Errorf("%s: cost %v, catalog says %v", e.RequestID, u.TotalCost, want.Total)
	}
}

// TestAuditRecordsEveryOutcome sends chat, messages and responses requests
// (streamed and not), a tool conversation, an auth failure, a rate-limited
// request, one an upstream fails with 500 and one whose client goes away,
// then reads the store: one entry each, with the fields that match.
func TestAuditRecordsEveryOutcome(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_LIMITED", "rpm=1")
	ups := matrixUpstreams{anth: newAnthropicReplay(t)}
	block := "master_key " + masterKey + "\n" + providerBlock("anth", "anthropic", anthropicKey, ups.anth.BaseURL())
	for _, f := range replayFamilies {
		u := newReplay(t, f.family)
		switch f.family {
		case "openai":
			ups.openai = u
		case "groq":
			ups.groq = u
		case "gemini":
			ups.gemini = u
		}
		block += providerBlock(f.family, f.family, f.key, u.BaseURL())
	}
	g := startGateway(t, block)
	serveResponses(ups.openai)
	ups.groq.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
	})
	ups.gemini.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		holdBackStream(w, r, make(chan struct{}))
	})
	ctx := context.Background()
	rid := func(id string) option.RequestOption { return option.WithHeader("X-Request-Id", id) }
	oa := openaiClient(g, masterKey)
	gpt := "openai/gpt-4o-mini"
	hello := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello")}

	// Chat, not streamed, with an explicit session.
	if _, err := oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: gpt, Messages: hello,
		Temperature: openai.Float(0.5), MaxTokens: openai.Int(40)},
		rid("chat"), option.WithHeader("X-Session-Id", "sess-chat")); err != nil {
		t.Fatal(err)
	}
	// Chat, streamed.
	st := oa.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: gpt, Messages: hello,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}, rid("chat-stream"))
	for st.Next() {
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	// A tool conversation.
	ups.openai.Respond("chat_with_tools.json")
	if _, err := oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: gpt,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool}}, rid("tools")); err != nil {
		t.Fatal(err)
	}
	ups.openai.Respond("chat_completion.json")
	// Responses, streamed and not.
	if _, err := oa.Responses.New(ctx, responsesRequest(gpt, "responses.json"), rid("responses")); err != nil {
		t.Fatal(err)
	}
	rs := oa.Responses.NewStreaming(ctx, responsesRequest(gpt, "responses.json"), rid("responses-stream"))
	for rs.Next() {
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	// Messages, streamed and not, with a managed key.
	key := createKey(t, g, `{"name":"audited"}`)
	ac := anthropicClient(g, key.Secret)
	mp := anthropic.MessageNewParams{Model: anthropic.Model("anth/" + claudeModel), MaxTokens: 64,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello"))}}
	if _, err := ac.Messages.New(ctx, mp, aoption.WithHeader("X-Request-Id", "messages")); err != nil {
		t.Fatal(err)
	}
	ms := ac.Messages.NewStreaming(ctx, mp, aoption.WithHeader("X-Request-Id", "messages-stream"))
	for ms.Next() {
	}
	if err := ms.Err(); err != nil {
		t.Fatal(err)
	}
	// An auth failure.
	bad := openaiClient(g, "sk-not-a-key-0000000000")
	if _, err := bad.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: gpt, Messages: hello}, rid("auth")); err == nil {
		t.Fatal("an unknown key was accepted")
	}
	// A rate-limited request: the second under /limited.
	for _, id := range []string{"limited-1", "limited-2"} {
		_, _ = oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: gpt, Messages: hello}, rid(id),
			option.WithHeader(userPathHeader, "/limited"))
	}
	// An upstream 500.
	if _, err := oa.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "groq/llama-3.3-70b-versatile", Messages: hello},
		rid("upstream-500")); err == nil {
		t.Fatal("the upstream's 500 was not passed on")
	}
	// A model endpoint asked with a method it does not take, and a path
	// under /v1/ that no endpoint has.
	for _, c := range []struct{ id, method, path string }{
		{"wrong-method", "GET", "/v1/chat/completions"}, {"unknown-route", "POST", "/v1/nonexistent"},
		{"escaped", "POST", "/v1/chat/completion%73"}} {
		req, _ := http.NewRequest(c.method, g.URL+c.path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+masterKey)
		req.Header.Set("X-Request-Id", c.id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// A client that goes away mid-stream.
	dctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(dctx, "POST", g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"gemini/gemini-2.5-flash","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer "+masterKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "disconnect")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()

	var entries map[string][]*audit.Entry
	var usage map[audit.ID][]*audit.UsageRecord
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		entries, usage = auditRecords(t)
		if len(entries["disconnect"]) > 0 || time.Now().After(deadline) {
			break
		}
	}

	chatFix := chatFixture(t, "openai", "chat_completion.json")
	e := one(t, entries, "chat")
	checkEntry(t, e, 200, "openai", "openai", gpt, "gpt-4o-mini")
	checkUsage(t, e, usage[e.ID], "openai", chatFix.Usage.Prompt, chatFix.Usage.Completion)
	if e.SessionID != "sess-chat" || e.UserPath != "/" || e.AuthMethod != "master_key" || e.PrincipalID != "master" ||
		e.Stream || e.Data.APIKeyHash != audit.APIKeyHash(masterKey) {
		t.Errorf("chat entry: session %q path %q auth %q principal %q stream %v hash %q", e.SessionID, e.UserPath,
			e.AuthMethod, e.PrincipalID, e.Stream, e.Data.APIKeyHash)
	}
	if e.Data.Temperature == nil || *e.Data.Temperature != 0.5 || e.Data.MaxTokens == nil || *e.Data.MaxTokens != 40 {
		t.Errorf("chat entry: temperature %v max_tokens %v", e.Data.Temperature, e.Data.MaxTokens)
	}
	if len(e.Data.Attempts) != 1 || e.Data.Attempts[0].Kind != audit.AttemptPrimary || e.Data.Attempts[0].StatusCode != 200 ||
		!e.Data.Attempts[0].Success || e.Data.Attempts[0].ProviderName != "openai" {
		t.Errorf("chat attempts: %+v", e.Data.Attempts)
	}
	if !jsonEqual(string(e.Data.ResponseBody), string(fixtureBytes(t, "openai", "chat_completion.json"))) {
		t.Errorf("chat response body %s", e.Data.ResponseBody)
	}
	// The OpenAI SDK sends its key as Authorization: recorded as sent,
	// redacted.
	if e.Data.RequestHeaders["authorization"] != audit.Redacted {
		t.Errorf("chat entry: authorization recorded as %q", e.Data.RequestHeaders["authorization"])
	}

	e = one(t, entries, "chat-stream")
	checkEntry(t, e, 200, "openai", "openai", gpt, "gpt-4o-mini")
	if !e.Stream || jsonAt(decode(t, e.Data.ResponseBody), "object") != "chat.completion" ||
		jsonAt(decode(t, e.Data.ResponseBody), "choices.0.message.content") == nil {
		t.Errorf("streamed chat: stream %v body %s", e.Stream, e.Data.ResponseBody)
	}
	// The recorded stream reports no usage: the record counts no tokens
	// and its cost is unknown, not 0.
	if len(usage[e.ID]) != 1 || usage[e.ID][0].TotalTokens != 0 || usage[e.ID][0].TotalCost != nil {
		t.Errorf("streamed chat usage: %+v", usage[e.ID])
	}

	e = one(t, entries, "tools")
	checkEntry(t, e, 200, "openai", "openai", gpt, "gpt-4o-mini")
	if !e.ConversationPayload || jsonAt(decode(t, e.Data.ResponseBody), "choices.0.message.tool_calls.0.function.name") != "get_weather" {
		t.Errorf("tool entry: body %s", e.Data.ResponseBody)
	}

	for _, id := range []string{"responses", "responses-stream"} {
		e = one(t, entries, id)
		checkEntry(t, e, 200, "openai", "openai", gpt, "gpt-4o-mini")
		if jsonAt(decode(t, e.Data.ResponseBody), "object") != "response" || e.Stream != (id == "responses-stream") {
			t.Errorf("%s: stream %v body %s", id, e.Stream, e.Data.ResponseBody)
		}
		if len(usage[e.ID]) != 1 || usage[e.ID][0].TotalTokens == 0 || usage[e.ID][0].TotalCost == nil {
			t.Errorf("%s: usage %+v", id, usage[e.ID])
		}
	}

	msgFix := anthropicFixture(t, "messages.json")
	for _, id := range []string{"messages", "messages-stream"} {
		e = one(t, entries, id)
		checkEntry(t, e, 200, "anthropic", "anth", "anth/"+claudeModel, claudeModel)
		if e.AuthMethod != "api_key" || e.AuthKeyID != key.ID || e.Data.APIKeyHash != audit.APIKeyHash(key.Secret) {
			t.Errorf("%s: auth %q key %q hash %q", id, e.AuthMethod, e.AuthKeyID, e.Data.APIKeyHash)
		}
		if jsonAt(decode(t, e.Data.ResponseBody), "type") != "message" {
			t.Errorf("%s: body %s", id, e.Data.ResponseBody)
		}
		// The Anthropic SDK sends its key as x-api-key: recorded as sent,
		// redacted.
		if e.Data.RequestHeaders["x-api-key"] != audit.Redacted {
			t.Errorf("%s: x-api-key recorded as %q", id, e.Data.RequestHeaders["x-api-key"])
		}
	}
	e = one(t, entries, "messages")
	checkUsage(t, e, usage[e.ID], "anthropic", msgFix.Input, msgFix.Output)
	e = one(t, entries, "messages-stream")
	if len(usage[e.ID]) != 1 || usage[e.ID][0].OutputTokens == 0 || usage[e.ID][0].TotalCost == nil {
		t.Errorf("streamed messages usage: %+v", usage[e.ID])
	}

	e = one(t, entries, "auth")
	if e.StatusCode != 401 || e.AuthMethod != "none" || e.ErrorType != "authentication_error" || e.Data.ErrorCode == "" ||
		e.Data.APIKeyHash != audit.APIKeyHash("sk-not-a-key-0000000000") || len(usage[e.ID]) != 0 || e.ProviderName != "" {
		t.Errorf("auth failure entry: %+v data %+v", e, e.Data)
	}

	e = one(t, entries, "limited-1")
	if e.StatusCode != 200 || e.UserPath != "/limited" {
		t.Errorf("first limited request: %d %q", e.StatusCode, e.UserPath)
	}
	e = one(t, entries, "limited-2")
	if e.StatusCode != 429 || e.ErrorType != "rate_limit_error" || e.UserPath != "/limited" || len(usage[e.ID]) != 0 ||
		len(e.Data.Attempts) != 0 || e.RequestedModel == "" || e.ResolvedModel != "" {
		t.Errorf("rate-limited entry: %d %q %q usage %d attempts %d requested %q resolved %q", e.StatusCode, e.ErrorType, e.UserPath,
			len(usage[e.ID]), len(e.Data.Attempts), e.RequestedModel, e.ResolvedModel)
	}

	for id, status := range map[string]int{"wrong-method": 405, "unknown-route": 404, "escaped": 404} {
		e = one(t, entries, id)
		if e.StatusCode != status || e.ErrorType == "" || e.AuthMethod != "master_key" || len(usage[e.ID]) != 0 {
			t.Errorf("%s entry: %d %q %q usage %d", id, e.StatusCode, e.ErrorType, e.AuthMethod, len(usage[e.ID]))
		}
	}
	// The path is recorded as the client escaped it: the route it was
	// matched on, not the endpoint its decoded form names.
	if e = one(t, entries, "escaped"); e.Path != "/v1/chat/completion%73" {
		t.Errorf("escaped path recorded as %q", e.Path)
	}

	e = one(t, entries, "upstream-500")
	if e.StatusCode != 500 || e.ErrorType != "provider_error" || e.ProviderName != "groq" || len(e.Data.Attempts) != 1 ||
		e.Data.Attempts[0].StatusCode != 500 || e.Data.Attempts[0].Success || len(usage[e.ID]) != 0 {
		t.Errorf("upstream 500 entry: %+v attempts %+v", e, e.Data.Attempts)
	}

	e = one(t, entries, "disconnect")
	if e.StatusCode != 499 || e.Data.ErrorCode != "client_disconnected" || !e.Stream || e.ProviderName != "gemini" {
		t.Errorf("disconnect entry: status %d code %q stream %v provider %q", e.StatusCode, e.Data.ErrorCode, e.Stream, e.ProviderName)
	}
	// A stream the client left before its usage arrived is not a completed
	// request: no usage record, as its entry counts none.
	if len(usage[e.ID]) != 0 || e.Usage.Entries != 0 {
		t.Errorf("disconnect: %d usage records, entry counts %d", len(usage[e.ID]), e.Usage.Entries)
	}

	// No credential reached the store file.
	db, err := os.ReadFile(filepath.Join(g.DataDir, "modelgate.db"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{masterKey, key.Secret, anthropicKey}
	for _, f := range replayFamilies {
		secrets = append(secrets, f.key)
	}
	// Body chunks are stored compressed, so the file alone does not show
	// what they hold: the entries as read back, bodies included, must
	// not hold a credential either.
	stored, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if bytes.Contains(db, []byte(s)) {
			t.Errorf("the store file contains the secret %q", s)
		}
		if bytes.Contains(stored, []byte(s)) {
			t.Errorf("a stored entry contains the secret %q", s)
		}
	}
}

// TestAuditSessionsScopedByUserPath: two tenants sending the same
// conversation get different fingerprint sessions; a too-long session id
// is ignored.
func TestAuditSessionsScopedByUserPath(t *testing.T) {
	g := startMockGateway(t)
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"same start"}]}`
	for _, c := range []struct{ id, path, session string }{
		{"a", "/tenant-a", ""}, {"b", "/tenant-b", ""}, {"long", "/tenant-a", strings.Repeat("x", 201)},
	} {
		h := append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, c.path, "X-Request-Id", c.id)
		if c.session != "" {
			h = append(h, "X-Session-Id", c.session)
		}
		if res := request(t, "POST", g.URL+"/v1/chat/completions", body, h...); res.Status != 200 {
			t.Fatalf("%s: %d %s", c.id, res.Status, res.Body)
		}
	}
	entries, _ := auditRecords(t)
	a, b, long := one(t, entries, "a"), one(t, entries, "b"), one(t, entries, "long")
	if !strings.HasPrefix(a.SessionID, audit.FingerprintPrefix) || a.SessionID == b.SessionID || long.SessionID != a.SessionID {
		t.Errorf("sessions: a %q b %q long %q", a.SessionID, b.SessionID, long.SessionID)
	}
}

// fixtureBytes returns a provider fixture.
func fixtureBytes(t *testing.T, family, name string) []byte {
	t.Helper()
	return fixtures.Must(t, family, name)
}

// decode parses a recorded body.
func decode(t *testing.T, b json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("recorded body %s: %v", b, err)
	}
	return v
}

// TestAuditDroppedMetric: the drop counter is exported through Caddy's
// metrics, labelled by kind and reason: records refused by a full queue
// (always shown) and records the store refuses for good.
func TestAuditDroppedMetric(t *testing.T) {
	g := startMockGateway(t)
	// A write whose key bbolt refuses is dropped by the store's writer.
	st := activeApp(t).Store()
	st.Enqueue(store.Write{Kind: "usage", Bucket: "e2e_drops", Key: bytes.Repeat([]byte("k"), 40_000), Value: []byte("v")})
	_ = st.Flush(context.Background())
	res := request(t, "GET", g.AdminURL+"/metrics", "")
	for _, want := range []string{`modelgate_audit_dropped_total{kind="entry",reason="queue_full"} 0`,
		`modelgate_audit_dropped_total{kind="usage",reason="queue_full"} 0`,
		`modelgate_audit_dropped_total{kind="usage",reason="key_too_large"} 1`} {
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
