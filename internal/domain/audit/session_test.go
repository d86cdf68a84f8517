package audit

import (
	"net/http"
	"strings"
	"testing"
)

func TestDetectSessionOrder(t *testing.T) {
	lookup := func(path, id string) (string, bool) {
		if path == "/a" && id == "resp_1" {
			return "from-previous", true
		}
		return "", false
	}
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	full := `{"metadata":{"session_id":"meta-session","user_id":"meta-user"},"prompt_cache_key":"pck","previous_response_id":"resp_1","messages":[{"role":"user","content":"hi"}]}`
	long := strings.Repeat("x", MaxSessionIDLen+1)
	cases := []struct {
		name   string
		header http.Header
		body   string
		path   string
		want   string
	}{
		{"x-session-id first", h("X-Session-Id", "hdr", "X-Claude-Code-Session-Id", "cc"), full, "/a", "hdr"},
		{"claude code header next", h("x-claude-code-session-id", "cc"), full, "/a", "cc"},
		{"metadata.session_id", nil, full, "/a", "meta-session"},
		{"metadata.user_id", nil, `{"metadata":{"user_id":"meta-user"},"prompt_cache_key":"pck"}`, "/a", "meta-user"},
		{"prompt_cache_key", nil, `{"prompt_cache_key":"pck","previous_response_id":"resp_1"}`, "/a", "pck"},
		{"previous response", nil, `{"previous_response_id":"resp_1","input":"next"}`, "/a", "from-previous"},
		{"previous response of another tenant", nil, `{"previous_response_id":"resp_1"}`, "/b", ""},
		{"too long ignored", h("X-Session-Id", long), `{"metadata":{"session_id":"ok"}}`, "/a", "ok"},
		{"200 characters accepted", h("X-Session-Id", long[:MaxSessionIDLen]), "", "/a", long[:MaxSessionIDLen]},
		{"control character ignored", nil, `{"metadata":{"session_id":"a\u0007b","user_id":"u"}}`, "/a", "u"},
		{"blank ignored", h("X-Session-Id", "   "), `{"prompt_cache_key":"pck"}`, "/a", "pck"},
		{"non-string ignored", nil, `{"metadata":{"session_id":42},"prompt_cache_key":"pck"}`, "/a", "pck"},
		{"nothing to go on", nil, `{"input":[]}`, "/a", ""},
		{"not json", nil, `hello`, "/a", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DetectSession(SessionInput{UserPath: c.path, Header: c.header, Body: []byte(c.body), PreviousResponse: lookup})
			if got != c.want {
				t.Fatalf("session %q, want %q", got, c.want)
			}
		})
	}
}

func TestFingerprintFollowsTheConversation(t *testing.T) {
	detect := func(path, body string) string {
		return DetectSession(SessionInput{UserPath: path, Body: []byte(body)})
	}
	// Chat completions: later turns keep the system prompt and first user
	// message, so they share the session.
	chat1 := `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"plan a trip"}]}`
	chat2 := `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"plan a trip"},{"role":"assistant","content":"where?"},{"role":"user","content":"Rome"}]}`
	other := `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"plan a party"}]}`
	s1 := detect("/a", chat1)
	if !strings.HasPrefix(s1, FingerprintPrefix) || len(s1) != len(FingerprintPrefix)+24 {
		t.Fatalf("fingerprint %q", s1)
	}
	if detect("/a", chat2) != s1 {
		t.Fatal("the second turn left the session")
	}
	if detect("/a", other) == s1 {
		t.Fatal("another conversation joined the session")
	}
	if detect("/b", chat1) == s1 {
		t.Fatal("two user paths share a fingerprint")
	}
	// Content parts and the Anthropic and Responses shapes.
	parts := `{"messages":[{"role":"developer","content":[{"type":"text","text":"be brief"}]},{"role":"user","content":[{"type":"text","text":"plan a trip"}]}]}`
	if detect("/a", parts) != s1 {
		t.Fatal("content parts fingerprint differently from the same text")
	}
	anth := `{"system":"be brief","messages":[{"role":"user","content":"plan a trip"}]}`
	anthBlocks := `{"system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":[{"type":"text","text":"plan a trip"}]},{"role":"assistant","content":"ok"}]}`
	if detect("/a", anth) != s1 || detect("/a", anthBlocks) != s1 {
		t.Fatal("Anthropic shape fingerprints differently")
	}
	resp := `{"instructions":"be brief","input":"plan a trip"}`
	respItems := `{"instructions":"be brief","input":[{"role":"user","content":[{"type":"input_text","text":"plan a trip"}]}]}`
	if detect("/a", resp) != s1 || detect("/a", respItems) != s1 {
		t.Fatal("Responses shape fingerprints differently")
	}
	image := `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:x"}}]}]}`
	if detect("/a", image) == "" {
		t.Fatal("image-only conversation has no session")
	}
}

func TestResponseSessionsEvictOldestAndScopeByPath(t *testing.T) {
	r := NewResponseSessions(2)
	r.Remember("/a", "r1", "s1")
	r.Remember("/a", "r2", "s2")
	r.Remember("/a", "r1", "s1b") // update: no eviction
	if s, ok := r.Lookup("/a", "r1"); !ok || s != "s1b" {
		t.Fatalf("r1 = %q %v", s, ok)
	}
	r.Remember("/a", "r3", "s3") // evicts r1, the oldest
	if _, ok := r.Lookup("/a", "r1"); ok {
		t.Fatal("oldest answer not evicted")
	}
	for _, id := range []string{"r2", "r3"} {
		if _, ok := r.Lookup("/a", id); !ok {
			t.Fatalf("%s forgotten", id)
		}
	}
	if _, ok := r.Lookup("/b", "r2"); ok {
		t.Fatal("another user path found the answer")
	}
	r.Remember("/a", "", "s")
	r.Remember("/a", "r9", "")
	if _, ok := r.Lookup("/a", "r9"); ok {
		t.Fatal("empty session remembered")
	}
}
