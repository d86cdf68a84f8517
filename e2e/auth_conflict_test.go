package e2e

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestConflictingCredentialsRefused: a credential header sent twice, or
// two besides Authorization that disagree, get 400 conflicting_credentials
// in the route's envelope, quoting neither; agreeing headers pass, and
// Authorization wins over every other credential header.
func TestConflictingCredentialsRefused(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") || k == "GATEWAY_MASTER_KEY" {
			t.Setenv(k, "")
		}
	}
	const master = "conflict-master-key-1"
	g := startGateway(t, "master_key "+master+"\nprovider mocky {\n type mock\n}\n")
	chat := `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`
	msgs := `{"model":"mock-chat","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	cases := []struct {
		name   string
		path   string
		header http.Header
		status int
	}{
		{"agreeing bearer and x-api-key", "/v1/chat/completions", http.Header{"Authorization": {"Bearer " + master}, "X-Api-Key": {master}}, 200},
		{"bearer wins over another x-api-key", "/v1/chat/completions", http.Header{"Authorization": {"Bearer " + master}, "X-Api-Key": {"other-key-2"}}, 200},
		{"another bearer wins over the x-api-key", "/v1/messages", http.Header{"Authorization": {"Bearer other-key-2"}, "X-Api-Key": {master}}, 401},
		{"x-api-key and another api-key", "/v1/chat/completions", http.Header{"X-Api-Key": {master}, "Api-Key": {"other-key-2"}}, 400},
		{"bearer wins over another x-goog-api-key", "/v1/chat/completions", http.Header{"Authorization": {"Bearer " + master}, "X-Goog-Api-Key": {"other-key-2"}}, 200},
		{"repeated authorization", "/v1/chat/completions", http.Header{"Authorization": {"Bearer " + master, "Bearer other-key-2"}}, 400},
		{"repeated x-api-key on messages", "/v1/messages", http.Header{"X-Api-Key": {master, master}}, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := chat
			if c.path == "/v1/messages" {
				body = msgs
			}
			req, err := http.NewRequest(http.MethodPost, g.URL+c.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = c.header.Clone()
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, out)
			}
			if c.status != 400 {
				return
			}
			if strings.Contains(string(out), master) || strings.Contains(string(out), "other-key-2") {
				t.Errorf("the refusal quotes a credential: %s", out)
			}
			want := `"code":"conflicting_credentials"`
			if c.path == "/v1/messages" {
				want = `{"type":"error","error":{"type":"invalid_request_error"`
			}
			if !strings.Contains(string(out), want) {
				t.Errorf("want %s in %s", want, out)
			}
		})
	}
}
