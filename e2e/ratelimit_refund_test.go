package e2e

import (
	"testing"
)

// TestRLTargetRefusalIsNotCountedOnTheUserPath: a request a saturated
// provider rule refuses never reached a provider, so the user-path window
// gives it back.
func TestRLTargetRefusalIsNotCountedOnTheUserPath(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_", "rpm=2")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_P", "rpm=1")
	g := startGateway(t, providerBlock("p", "mock", "", "")+providerBlock("q", "mock", "", ""))
	chat := func(model string) (int, string) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
		return res.Status, string(res.Body)
	}
	steps := []struct {
		model    string
		status   int
		provider string
	}{
		{"p/mock-chat", 200, ""},  // user path 1 of 2, provider p 1 of 1
		{"p/mock-chat", 429, "p"}, // provider p saturated: not counted on the path
		{"q/mock-chat", 200, ""},  // user path 2 of 2
		{"q/mock-chat", 429, ""},  // user path exhausted
	}
	for i, s := range steps {
		status, body := chat(s.model)
		if status != s.status {
			t.Fatalf("step %d (%s): status %d, want %d: %s", i, s.model, status, s.status, body)
		}
		if status == 429 {
			e := decodeError(t, status, []byte(body))
			if e.Provider != s.provider {
				t.Fatalf("step %d: refused by %q, want %q: %s", i, e.Provider, s.provider, body)
			}
		}
	}
}
