package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// trickle opens a connection to the gateway, sends a POST with the given
// credential headers that declares a 100 KB body and then sends one byte
// of it every 100 ms. It returns how long the gateway kept the connection
// open (until it closed or reset it), or fails after limit.
func trickle(t *testing.T, g *gateway, headers string, limit time.Duration) time.Duration {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: 100000\r\n\r\n{",
		strings.TrimPrefix(g.URL, "http://"), headers)
	closed := make(chan time.Duration, 1)
	go func() {
		_, _ = io.Copy(io.Discard, conn) // ends when the gateway closes or resets
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(limit)
	for {
		select {
		case d := <-closed:
			return d
		case <-deadline:
			t.Fatalf("the gateway still held a trickling connection after %s", limit)
		case <-tick.C:
			_, _ = conn.Write([]byte(" "))
		}
	}
}

// TestReadBodyTimeout: a client that trickles a request body is cut off
// once read_body_timeout has passed, whether its key is valid, wrong or
// missing; a request whose body arrives in time is not, even when its
// answer takes longer than the timeout.
func TestReadBodyTimeout(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "master_key "+masterKey+"\nread_body_timeout 1s\n"+
		"provider demo {\n type mock\n latency 1500ms\n}\n")
	for _, c := range []struct{ name, headers string }{
		{"valid key", "Authorization: Bearer " + masterKey + "\r\n"},
		{"wrong key", "x-api-key: sk-wrong\r\n"},
		{"no key", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			held := trickle(t, g, c.headers, 6*time.Second)
			if held < 900*time.Millisecond || held > 3*time.Second {
				t.Errorf("connection held %s, want about the 1s read_body_timeout", held)
			}
		})
	}
	t.Run("slow answer", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"demo/mock-chat","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("a request sent in time, answered after the timeout: %d %s", res.Status, res.Body)
		}
	})
	t.Run("slow stream", func(t *testing.T) {
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"demo/mock-chat","stream":true,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 200 || !strings.Contains(string(res.Body), "data: [DONE]") {
			t.Fatalf("a stream asked in time, answered after the timeout: %d %s", res.Status, res.Body)
		}
	})
}

// stall sends a request whose headers declare a body of 100,000 bytes,
// then sends head (a part of it) and nothing more, and returns the answer
// the gateway gives (the connection is read for at most 10 s).
func stall(t *testing.T, g *gateway, path, contentType, head string, headers ...string) (int, string) {
	t.Helper()
	host := strings.TrimPrefix(g.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var extra strings.Builder
	for i := 0; i+1 < len(headers); i += 2 {
		fmt.Fprintf(&extra, "%s: %s\r\n", headers[i], headers[i+1])
	}
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n%sContent-Length: 100000\r\n\r\n%s",
		path, host, contentType, extra.String(), head)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestStalledBodyRequestTimeout: a client that sends its headers and part
// of its body, then nothing, gets 408 request_timeout in the gateway shape
// once read_body_timeout has passed, whichever stage reads the body first
// (the audit stage, the response cache, the proxy, a multipart reader,
// the admin API, passthrough), and the audit entry says 408.
func TestStalledBodyRequestTimeout(t *testing.T) {
	clearEnv(t)
	up := newRecordingUpstream(t, passthroughUpstream)
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "oai")
	block := "master_key " + masterKey + "\nread_body_timeout 500ms\n" +
		"provider demo {\n type mock\n}\n" +
		providerBlock("oai", "openai", "sk-stall-upstream", up.URL+"/v1", "models gpt-4o-mini whisper-1", "models_mode allowlist")
	g := startGateway(t, block)
	const boundary = "stallboundary"
	multipart := "multipart/form-data; boundary=" + boundary
	formHead := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\noai/whisper-1\r\n--" + boundary +
		"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jsonl\"\r\nContent-Type: application/octet-stream\r\n\r\nabc"
	cases := []struct {
		name, path, ctype, head string
		audited                 bool
	}{
		{"chat", "/v1/chat/completions", "application/json", `{"model":"demo/mock-chat","messages":[`, true},
		{"speech", "/v1/audio/speech", "application/json", `{"model":"oai/tts-1","input":"`, true},
		{"batches", "/v1/batches", "application/json", `{"input_file_id":"file-`, true},
		{"files", "/v1/files", multipart, formHead, true},
		{"transcriptions", "/v1/audio/transcriptions", multipart, formHead, true},
		{"admin", "/admin/rate-limits/reset-one", "application/json", `{"scope":"user_path",`, false},
		{"passthrough json", "/p/oai/v1/chat/completions", "application/json", `{"model":"gpt-4o-mini",`, true},
		{"passthrough bytes", "/p/oai/v1/upload", "application/octet-stream", `abcdef`, true},
	}
	run := func(t *testing.T, checkAudit bool) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				path := fmt.Sprintf("/stall/%d/%v", i, checkAudit)
				status, body := stall(t, g, c.path, c.ctype, c.head, "Authorization", "Bearer "+masterKey, userPathHeader, path)
				if status != 408 {
					t.Fatalf("status %d, want 408: %.300s", status, body)
				}
				e := decodeError(t, status, []byte(body))
				if e.Type != "invalid_request_error" || orNull(e.Code) != "request_timeout" {
					t.Errorf("error %+v, want invalid_request_error/request_timeout", e)
				}
				if !checkAudit || !c.audited {
					return
				}
				log := adminCall(t, g, "GET", "/admin/audit/log?user_path="+path, "").JSON(t)
				entries, _ := log["entries"].([]any)
				if len(entries) != 1 {
					t.Fatalf("audit log lists %v", log)
				}
				if got := entries[0].(map[string]any)["status_code"]; got != 408.0 {
					t.Errorf("audit entry status %v, want 408: %v", got, entries[0])
				}
			})
		}
	}
	t.Run("audited", func(t *testing.T) { run(t, true) })
	// Without the audit stage reading bodies, the response cache (chat)
	// and the proxy (speech) are the first to read them.
	t.Setenv("LOGGING_ENABLED", "false")
	t.Setenv("USAGE_ENABLED", "false")
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	g = restartGateway(t, block)
	t.Run("unaudited", func(t *testing.T) { run(t, false) })
}
