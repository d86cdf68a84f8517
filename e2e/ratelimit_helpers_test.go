package e2e

// Helpers of the rate-limit end-to-end tests (files ratelimit_*_test.go):
// a clean rate-limit environment, a slow OpenAI-compatible upstream that
// counts the requests it is serving at once, and readers for the admin
// rule list and GET /v1/usage.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rlUserPath is the user-path header.
const rlUserPath = "X-Modelgate-User-Path"

// rlClearEnv clears what accClearEnv clears plus every rate-limit
// variable, restoring them when the test ends.
func rlClearEnv(t *testing.T) {
	t.Helper()
	accClearEnv(t)
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SET_RATE_LIMIT_") || strings.HasPrefix(k, "SET_PROVIDER_RATE_LIMIT_") || k == "RATE_LIMITS_FLUSH_INTERVAL" {
			_ = os.Unsetenv(k)
			t.Cleanup(func() { _ = os.Setenv(k, v) })
		}
	}
}

// rlChat sends a small non-streamed chat completion to the mock provider
// for userPath with the master key.
func rlChat(t testing.TB, g *gateway, userPath string) accResp {
	t.Helper()
	return accDo(t, "POST", g.URL+"/v1/chat/completions", accChat, append(bearer(accMaster), rlUserPath, userPath)...)
}

// rlRule finds one rule of GET /admin/rate-limits.
func rlRule(t testing.TB, g *gateway, scope, subject, period string) map[string]any {
	t.Helper()
	res := accAdmin(t, g, "GET", "/admin/rate-limits", "")
	if res.Status != 200 {
		t.Fatalf("listing rate limits: %d %s", res.Status, res.Body)
	}
	for _, v := range res.JSON(t)["rules"].([]any) {
		r := v.(map[string]any)
		p, _ := r["period"].(string)
		if p == "" {
			p = fmt.Sprintf("%.0fs", r["period_seconds"])
		}
		if r["scope"] == scope && r["subject"] == subject && p == period {
			return r
		}
	}
	t.Fatalf("no %s rule on %s per %s in %s", scope, subject, period, res.Body)
	return nil
}

// rlWaitInFlight waits until every concurrent rule reports nothing in
// flight.
func rlWaitInFlight(t testing.TB, g *gateway) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := accAdmin(t, g, "GET", "/admin/rate-limits", "")
		busy := ""
		for _, v := range res.JSON(t)["rules"].([]any) {
			r := v.(map[string]any)
			if n, _ := r["in_flight"].(float64); n != 0 {
				busy += fmt.Sprintf(" %v %v: %v;", r["scope"], r["subject"], n)
			}
		}
		if busy == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("slots still held:%s", busy)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rlSlowUpstream is an OpenAI-compatible upstream that serves model
// slow-model, takes delay per answer (per event when streaming) and
// records how many requests it serves at once.
type rlSlowUpstream struct {
	srv      *httptest.Server
	delay    time.Duration
	events   int // stream events per answer
	inFlight atomic.Int64
	maxSeen  atomic.Int64
	served   atomic.Int64
}

func rlNewSlowUpstream(t testing.TB, delay time.Duration, events int) *rlSlowUpstream {
	t.Helper()
	u := &rlSlowUpstream{delay: delay, events: events}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// block is the provider block for this upstream.
func (u *rlSlowUpstream) block(name string) string {
	return "provider " + name + " {\n type openai\n api_key sk-slow-test\n base_url " + u.srv.URL + "/v1\n}\n"
}

func (u *rlSlowUpstream) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"slow-model","object":"model","owned_by":"test"}]}`)
		return
	}
	n := u.inFlight.Add(1)
	defer u.inFlight.Add(-1)
	for {
		m := u.maxSeen.Load()
		if n <= m || u.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	u.served.Add(1)
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `"stream":true`) {
		if !rlSleep(r.Context(), u.delay) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"slow-model","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"slow"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i := 0; i < u.events; i++ {
		_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"slow-model\","+
			"\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"},\"finish_reason\":null}]}\n\n", i)
		if rc.Flush() != nil || !rlSleep(r.Context(), u.delay) {
			return
		}
	}
	_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"slow-model","choices":[],`+
		`"usage":{"prompt_tokens":4,"completion_tokens":6,"total_tokens":10}}`+"\n\ndata: [DONE]\n\n")
	_ = rc.Flush()
}

// rlSleep waits d unless ctx ends first; it reports whether d passed.
func rlSleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// rlSlowChat is a chat request for the slow upstream.
func rlSlowChat(stream bool) string {
	return fmt.Sprintf(`{"model":"slow-model","stream":%v,"messages":[{"role":"user","content":"hi"}]}`, stream)
}
