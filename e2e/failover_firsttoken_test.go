package e2e

// Failover of a stream that answers 200 and then an error before any
// content (Anthropic's overloaded_error).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// errorFirstUpstream is a fake Anthropic upstream: model c1 and solo
// answer a stream that begins with message_start and ping, then sends
// event: error (overloaded_error); c2 answers a whole stream with the text
// "from c2". goodHits counts c2's calls.
func errorFirstUpstream(t *testing.T, goodHits *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_%s\",\"type\":\"message\",\"role\":\"assistant\",\"model\":%q,\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n", req.Model, req.Model)
		fmt.Fprint(w, "event: ping\ndata: {\"type\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		if req.Model != "c2" {
			fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
			return
		}
		goodHits.Add(1)
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"from c2\"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestStreamErrorBeforeFirstTokenFailsOver: a Messages stream whose
// upstream sends event: error before any content fails over along the
// route a1/c1 → a2/c2, for an Anthropic client and for a chat client
// (translated); the client gets only the second stream, and the audit
// entry shows both attempts, the first with its error. Without a route,
// the client gets the error event in its stream, as before.
func TestStreamErrorBeforeFirstTokenFailsOver(t *testing.T) {
	clearEnv(t)
	var goodHits atomic.Int64
	up := errorFirstUpstream(t, &goodHits)
	block := "master_key " + masterKey + "\nconfig_file " + writeFile(t, "routing.yaml", "failover:\n  a1/c1: [a2/c2]\n") + "\n" +
		providerBlock("a1", "anthropic", "sk-ant-1", up.URL+"/v1", "models c1 solo", "models_mode allowlist") +
		providerBlock("a2", "anthropic", "sk-ant-2", up.URL+"/v1", "models c2", "models_mode allowlist")
	g := startGateway(t, block)

	msgs := request(t, "POST", g.URL+"/v1/messages",
		`{"model":"a1/c1","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), "X-Request-Id", "fft-messages")...)
	if msgs.Status != 200 || !strings.Contains(string(msgs.Body), "from c2") || strings.Contains(string(msgs.Body), "overloaded") ||
		strings.Contains(string(msgs.Body), "msg_c1") || msgs.Header.Get("X-Modelgate-Provider") != "a2" {
		t.Fatalf("messages stream: %d %s %s", msgs.Status, msgs.Header.Get("X-Modelgate-Provider"), msgs.Body)
	}
	chat := request(t, "POST", g.URL+"/v1/chat/completions",
		`{"model":"a1/c1","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		append(bearer(masterKey), "X-Request-Id", "fft-chat")...)
	if chat.Status != 200 || !strings.Contains(string(chat.Body), "from c2") || strings.Contains(string(chat.Body), "verloaded") {
		t.Fatalf("chat stream: %d %s", chat.Status, chat.Body)
	}
	before := goodHits.Load()
	solo := request(t, "POST", g.URL+"/v1/messages",
		`{"model":"a1/solo","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
	if solo.Status != 200 || !strings.Contains(string(solo.Body), "event: error") ||
		!strings.Contains(string(solo.Body), "overloaded_error") || goodHits.Load() != before {
		t.Fatalf("stream without a route: %d %s", solo.Status, solo.Body)
	}

	entries, _ := auditRecords(t)
	for _, id := range []string{"fft-messages", "fft-chat"} {
		e := one(t, entries, id)
		at := e.Data.Attempts
		if len(at) != 2 || at[0].Kind != audit.AttemptPrimary || at[0].ProviderName != "a1" || at[0].Success ||
			at[0].ErrorCode != "overloaded_error" || at[0].ErrorMessage == "" || at[0].StatusCode != 200 ||
			!strings.Contains(string(at[0].ResponseBody), "overloaded_error") ||
			at[1].Kind != audit.AttemptFailover || at[1].ProviderName != "a2" || !at[1].Success {
			t.Fatalf("%s: attempts %+v", id, at)
		}
		if e.StatusCode != 200 || e.ProviderName != "a2" || e.Data.Failover == nil || e.Data.Failover.TargetModel != "c2" {
			t.Errorf("%s: entry %d provider %q failover %+v", id, e.StatusCode, e.ProviderName, e.Data.Failover)
		}
	}
}
