package e2e

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawAnswer sends req on a fresh connection to the gateway and returns
// the answer Go's server or Caddy wrote, body read to the end (each of
// these answers closes the connection).
func rawAnswer(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	go func() { _, _ = io.WriteString(c, req) }() // a large request may still be going out when the answer comes
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: no answer: %v", req, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestAnswersBeforeAnyHandler: the answers docs/errors.md lists as written by Go's
// HTTP server or by Caddy before any modelgate handler runs, each checked
// over a raw connection: status, and a plain-text or empty body rather
// than the gateway's error shape.
func TestAnswersBeforeAnyHandler(t *testing.T) {
	g := startMockGateway(t)
	addr := strings.TrimPrefix(g.URL, "http://")
	host := "Host: " + addr + "\r\n"
	cases := []struct {
		name, req string
		status    int
		body      string // "" is an empty body
		plain     bool   // Content-Type text/plain
	}{
		// (Go's server reads the first 24 bytes before answering, looking
		// for the HTTP/2 preface: each request here is longer.)
		{"malformed request line", "GET /health\r\n" + host + "\r\n", 400, "400 Bad Request", true},
		{"no Host", "GET /health HTTP/1.1\r\n\r\n", 400, "400 Bad Request: missing required Host header", true},
		{"bad header name", "GET /health HTTP/1.1\r\n" + host + "Bad Name: x\r\n\r\n", 400, "400 Bad Request: invalid header name", true},
		{"headers too large", "GET /health HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n",
			431, "431 Request Header Fields Too Large", true},
		{"unsupported Transfer-Encoding", "POST /v1/chat/completions HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n",
			501, "Unsupported transfer encoding", true},
		{"unsupported HTTP version", "GET /health HTTP/2.0\r\n" + host + "\r\n", 505,
			"505 HTTP Version Not Supported: unsupported protocol version", true},
		{"Expect other than 100-continue", "POST /v1/chat/completions HTTP/1.1\r\n" + host + "Expect: tea\r\nContent-Length: 0\r\n\r\n",
			417, "", false},
		{"method over 32 bytes (Caddy)", strings.Repeat("M", 33) + " /health HTTP/1.1\r\n" + host + "\r\n", 405, "", false},
		{"empty Host (Caddy)", "GET /health HTTP/1.1\r\nHost: \r\n\r\n", 400, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := rawAnswer(t, addr, c.req)
			plain := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain")
			if resp.StatusCode != c.status || body != c.body || plain != c.plain {
				t.Errorf("got %d %q (Content-Type %q), want %d %q (plain text %v)", resp.StatusCode, body,
					resp.Header.Get("Content-Type"), c.status, c.body, c.plain)
			}
		})
	}
}
