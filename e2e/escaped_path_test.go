package e2e

import (
	"net/http"
	"testing"
)

// TestEscapedPathsMatchOneRoute: a model endpoint's path with a letter
// percent-encoded is not that endpoint for any stage. The stages that
// limit and record a request look its route up as the one that serves it
// does, so such a path is a 404 for all of them rather than a chat
// request that no rate limit counts.
func TestEscapedPathsMatchOneRoute(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_", "rpm=1")
	g := startGateway(t, mockBlock(""))
	chat := `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`
	if res := request(t, "POST", g.URL+"/v1/chat/completions", chat, bearer(masterKey)...); res.Status != http.StatusOK {
		t.Fatalf("first request: %d %s", res.Status, res.Body)
	}
	for _, path := range []string{"/v1/chat/completion%73", "/v1/chat%2Fcompletions", "/v1/model%73", "/v1/usag%65"} {
		res := request(t, "POST", g.URL+path, chat, bearer(masterKey)...)
		if path == "/v1/model%73" || path == "/v1/usag%65" {
			res = request(t, "GET", g.URL+path, "", bearer(masterKey)...)
		}
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s, want 404", path, res.Status, res.Body)
		}
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", chat, bearer(masterKey)...); res.Status != http.StatusTooManyRequests {
		t.Fatalf("second request: %d %s, want 429", res.Status, res.Body)
	}
}
