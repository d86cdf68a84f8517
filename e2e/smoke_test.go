package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestSmokeMockProvider(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "provider demo {\n type mock\n }")
	resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"mock-chat","messages":[{"role":"user","content":"ping"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Echo: ping") {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
}
