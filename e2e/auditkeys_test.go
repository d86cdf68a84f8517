package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAuditRedactsEveryKeyHeader: the headers an audited request carries
// its keys in — xi-api-key, a realtime client's
// openai-insecure-api-key.<key> subprotocol, and any header whose value
// holds the master key or a managed key (the one the request presented
// or another) — are stored as [REDACTED], and the entry read back through
// GET /admin/audit/log/{id} never holds a key; other subprotocols and
// ordinary headers stay readable.
func TestAuditRedactsEveryKeyHeader(t *testing.T) {
	g := startMockGateway(t)
	presented := createKey(t, g, `{"name":"presented"}`).Secret
	other := createKey(t, g, `{"name":"other"}`).Secret
	const elevenKey, realtimeKey = "xi-e2e-voice-key-8c1d2f", "sk-e2e-realtime-key-5b7a90"
	res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat,
		"Authorization", "Bearer "+presented, "X-Session-Id", "keys",
		"Xi-Api-Key", elevenKey,
		"Sec-WebSocket-Protocol", "realtime, openai-insecure-api-key."+realtimeKey+", openai-beta.realtime-v1",
		"X-Copy-Presented", "key="+presented,
		"X-Other-Managed", other,
		"X-Master-Copy", "Bearer "+masterKey,
		"X-Plain", "kept")
	if res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	e := auditEntryOf(t, g, "keys")
	d := e["data"].(map[string]any)
	reqH, _ := d["request_headers"].(map[string]any)
	for _, h := range []string{"xi-api-key", "x-copy-presented", "x-other-managed", "x-master-copy", "authorization"} {
		if reqH[h] != "[REDACTED]" {
			t.Errorf("request header %s stored as %v", h, reqH[h])
		}
	}
	proto, _ := reqH["sec-websocket-protocol"].(string)
	if !strings.Contains(proto, "[REDACTED]") || !strings.Contains(proto, "openai-beta.realtime-v1") {
		t.Errorf("sec-websocket-protocol stored as %q", proto)
	}
	if reqH["x-plain"] != "kept" {
		t.Errorf("x-plain stored as %v", reqH["x-plain"])
	}
	b, _ := json.Marshal(e)
	for _, s := range []string{presented, other, masterKey, elevenKey, realtimeKey} {
		if strings.Contains(string(b), s) {
			t.Errorf("the entry holds the key %s…", s[:6])
		}
	}
}
