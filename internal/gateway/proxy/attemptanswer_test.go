package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// TestFailedAttemptKeepsTheAnswer: an upstream error answer is kept on
// its attempt (headers, and the body without the provider's key) for the
// audit's attempts[].response_headers and response_body, and the client
// still gets the mapped error; a 401 keeps its headers but not its body,
// which may quote part of the key.
func TestFailedAttemptKeepsTheAnswer(t *testing.T) {
	const key = "sk-attempt-answer-secret-0123456789"
	for _, tc := range []struct {
		status   int
		wantBody bool
	}{{http.StatusServiceUnavailable, true}, {http.StatusUnauthorized, false}} {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "req-42")
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(`{"error":{"message":"overloaded, key ` + key + `","type":"server_error"}}`))
		}))
		p, err := providers.New(providers.Options{Name: "up", Type: "openai", BaseURL: up.URL + "/v1", APIKey: key, Client: up.Client()})
		if err != nil {
			t.Fatal(err)
		}
		reg := providers.NewRegistry([]providers.Entry{{Provider: p, Models: []string{"m1"}, Allowlist: true}}, providers.RegistryOptions{})
		s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, Upstreams: NewUpstreams(nil, []string{key})}
		rec, info := serve(s, "POST", "/v1/chat/completions", `{"model":"m1","messages":[]}`)
		up.Close()
		if e := errorOf(t, rec); rec.Code != tc.status || strings.Contains(rec.Body.String(), key) {
			t.Fatalf("%d: client got %d %v", tc.status, rec.Code, e)
		}
		a := info.Attempts()
		if len(a) != 1 || a[0].ResponseHeader.Get("X-Request-Id") != "req-42" {
			t.Fatalf("%d: attempts %+v", tc.status, a)
		}
		body := string(a[0].ResponseBody)
		if !tc.wantBody {
			if body != "" {
				t.Errorf("%d: body kept: %s", tc.status, body)
			}
			continue
		}
		if !strings.Contains(body, `"overloaded, key `) || strings.Contains(body, key) {
			t.Errorf("%d: body %s", tc.status, body)
		}
	}
}
