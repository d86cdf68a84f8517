package e2e

import (
	"fmt"
	"io"
	"net"
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
