package proxy

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPassthroughRedactsUpstreamHeaders: a provider key in an upstream's
// response header is removed from what passthrough relays, on error
// answers and others alike, as from error bodies; on the model endpoints
// it is removed from the headers relayed and from those an attempt
// records.
func TestPassthroughRedactsUpstreamHeaders(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	for _, status := range []int{400, 500, 200} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Debug-Key", rigOpenAIKey)
			w.Header().Add("X-Echo", "Bearer "+rigOpenAIKey+", x-api-key "+rigAnthropicKey)
			w.Header().Add("X-Echo", "plain")
			w.Header().Set("X-Request-Id", "req-"+rigOpenAIKey)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"key ` + rigOpenAIKey + `"}}`))
		})
		resp, body, _ := rigSend(t, rig, "POST", "/p/up/chat/completions", "application/json", shapes[0].body)
		if resp.StatusCode != status || resp.Header.Get("X-Debug-Key") != "[REDACTED]" ||
			strings.Join(resp.Header.Values("X-Echo"), "|") != "[REDACTED]|plain" {
			t.Errorf("passthrough %d: %d %v", status, resp.StatusCode, resp.Header)
		}
		for k, vs := range resp.Header {
			if v := strings.Join(vs, ","); strings.Contains(v, rigOpenAIKey) || strings.Contains(v, rigAnthropicKey) {
				t.Errorf("passthrough %d: header %s: %s", status, k, v)
			}
		}
		if status >= 400 && strings.Contains(body, rigOpenAIKey) {
			t.Errorf("passthrough %d: body %s", status, body)
		}

		rig.drain()
		resp, body, _ = rigSend(t, rig, "POST", shapes[0].path, "application/json", shapes[0].body)
		if got := resp.Header.Get("X-Request-Id"); status == 200 && got != "[REDACTED]" {
			t.Errorf("chat %d: X-Request-Id %q", status, got)
		}
		if status >= 400 {
			rig.clean(rigCall{body: body})
		}
		at := rig.served().Attempts()
		if len(at) != 1 {
			t.Fatalf("chat %d: attempts %+v", status, at)
		}
		for k, vs := range at[0].ResponseHeader {
			if v := strings.Join(vs, ","); strings.Contains(v, rigOpenAIKey) || strings.Contains(v, rigAnthropicKey) {
				t.Errorf("chat %d: the attempt recorded header %s: %s", status, k, v)
			}
		}
		rig.released()
	}
}

// TestPassthroughStreamBreakAborts: a passthrough answer the upstream
// breaks off (an event stream cut inside an event, reset inside an event
// or between events, silent past the idle timeout; a byte stream reset)
// aborts the client's connection instead of ending as if complete; only
// whole events reach the client, never a partial one; nothing is logged
// as a crash and the slot is released. A stream that ends well, its last
// event lacking only its blank line, ends normally, byte for byte.
func TestPassthroughStreamBreakAborts(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{ReadIdleTimeout: 100 * time.Millisecond})
	first := "event: one\ndata: {\"n\":1}\n\n"
	for _, tc := range []struct {
		name, ctype, sent string
		reset, silent     bool
		got               string
	}{
		{"cut inside an event", "text/event-stream", first + `data: {"partial":"ev`, false, false, first},
		{"reset inside an event", "text/event-stream", first + "event: two\ndata: {\"pa", true, false, first},
		{"reset between events", "text/event-stream", first, true, false, first},
		{"silent", "text/event-stream; charset=utf-8", first + "data: {\"partial\"", false, true, first},
		{"bytes reset", "audio/mpeg", "ID3-audio-bytes", true, false, "ID3-audio-bytes"},
	} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ctype)
			_, _ = w.Write([]byte(tc.sent))
			w.(http.Flusher).Flush()
			switch {
			case tc.reset:
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close()
				}
			case tc.silent:
				hold(r)
			}
		})
		rig.drain()
		c := rig.call("/p/up/chat/completions", shapes[0].stream)
		if c.status != 200 || c.readErr == nil {
			t.Errorf("%s: the client saw a complete answer: %d %q", tc.name, c.status, c.body)
		}
		if c.body != tc.got {
			t.Errorf("%s: client got %q, want %q", tc.name, c.body, tc.got)
		}
		if at := rig.served().Attempts(); len(at) != 1 || at[0].ErrCode == "" {
			t.Errorf("%s: attempts %+v", tc.name, at)
		}
		rig.released()
	}
	for _, stream := range []string{first + "data: [DONE]\n\n", first + "data: [DONE]\n"} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(stream))
		})
		c := rig.call("/p/up/chat/completions", shapes[0].stream)
		if c.status != 200 || c.readErr != nil || c.body != stream {
			t.Errorf("a whole stream: %d %v %q", c.status, c.readErr, c.body)
		}
	}
	if strings.Contains(rig.errLog.String(), "panic") {
		t.Errorf("an aborted answer was logged as a crash:\n%s", rig.errLog.String())
	}
}

// TestPassthrough429GetsRetryAfter: an upstream 429 relayed by passthrough
// keeps its own Retry-After; without one it gets the wait its rate-limit
// reset headers give, else 1. The model endpoints derive theirs the same
// way.
func TestPassthrough429GetsRetryAfter(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"own", map[string]string{"Retry-After": "13", "X-Ratelimit-Reset-Requests": "1s"}, "13"},
		{"openai reset", map[string]string{"X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Reset-Tokens": "6m0s",
			"X-Ratelimit-Remaining-Tokens": "0"}, "360"},
		{"anthropic reset", map[string]string{"Anthropic-Ratelimit-Requests-Reset": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, ""},
		{"none", nil, "1"},
	} {
		rig.upstream(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range tc.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit_error"}}`))
		})
		for _, path := range []string{"/p/up/chat/completions", shapes[0].path} {
			resp, body, _ := rigSend(t, rig, "POST", path, "application/json", shapes[0].body)
			got := resp.Header.Get("Retry-After")
			if tc.want == "" { // an hour off, give or take the clock's second
				if got != "3600" && got != "3599" {
					t.Errorf("%s %s: Retry-After %q", tc.name, path, got)
				}
			} else if got != tc.want {
				t.Errorf("%s %s: Retry-After %q, want %q", tc.name, path, got, tc.want)
			}
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("%s %s: %d %s", tc.name, path, resp.StatusCode, body)
			}
			rig.released()
		}
	}
}
