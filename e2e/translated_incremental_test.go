package e2e

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTranslatedStreamsAreIncremental: a stream translated onto another
// shape (/v1/messages and /v1/responses onto an OpenAI-family upstream)
// reaches the client event by event too: the first text delta arrives
// while the upstream still holds back the rest.
func TestTranslatedStreamsAreIncremental(t *testing.T) {
	clearEnv(t)
	release := make(chan chan struct{}, 1)
	u := newReplay(t, "openai")
	u.Handle("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		rel := <-release
		w.Header().Set("Content-Type", "text/event-stream")
		holdBackStream(w, r, rel,
			`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"slow","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`+"\n\n")
	})
	// Type groq: it speaks neither Messages nor Responses natively, so both
	// shapes are translated.
	g := startGateway(t, providerBlock("slow", "groq", "gsk-slow", u.BaseURL(), "models slow", "models_mode allowlist"))

	for _, c := range []struct{ path, body, last string }{
		{"/v1/messages", `{"model":"slow","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, "message_stop"},
		{"/v1/responses", `{"model":"slow","stream":true,"input":"hi"}`, "response.completed"},
	} {
		t.Run(c.path, func(t *testing.T) {
			rel := make(chan struct{})
			release <- rel
			released := false
			defer func() {
				if !released {
					close(rel)
				}
			}()
			req, _ := http.NewRequest(http.MethodPost, g.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			firstSeen := make(chan struct{})
			rest := make(chan string, 1)
			go func() {
				var all strings.Builder
				br := bufio.NewReader(resp.Body)
				signalled := false
				for {
					ev, err := readEvent(br)
					all.WriteString(ev)
					if !signalled && strings.Contains(ev, `"first"`) {
						signalled = true
						close(firstSeen)
					}
					if err != nil {
						break
					}
				}
				rest <- all.String()
			}()
			select {
			case <-firstSeen: // before the upstream was let go on
			case <-time.After(3 * time.Second):
				t.Fatalf("%s: the first translated delta did not arrive while the upstream held back", c.path)
			}
			close(rel)
			released = true
			select {
			case all := <-rest:
				if !strings.Contains(all, ` second`) || !strings.Contains(all, c.last) {
					t.Fatalf("%s: stream incomplete:\n%s", c.path, all)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: the stream did not finish", c.path)
			}
		})
	}
}
