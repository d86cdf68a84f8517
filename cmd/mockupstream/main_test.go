package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestMain lets the test binary act as the command, for the signal test.
func TestMain(m *testing.M) {
	if os.Getenv("MOCKUPSTREAM_RUN_MAIN") == "1" {
		os.Args = append([]string{"mockupstream"}, strings.Fields(os.Getenv("MOCKUPSTREAM_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// readAddr reads the "listening" line and returns the base URL.
func readAddr(t *testing.T, r io.Reader) string {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("reading the listening line: %v", res.err)
		}
		url, ok := strings.CutPrefix(strings.TrimSpace(res.line), "mockupstream listening on ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
			t.Fatalf("unexpected listening line %q", res.line)
		}
		return url
	case <-time.After(10 * time.Second):
		t.Fatal("no listening line")
	}
	return ""
}

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-api-key", "sk-x", "-embedding-dimensions", "8", "-latency", "1ms"}, pw, io.Discard)
	}()
	base := readAddr(t, pr)
	go io.Copy(io.Discard, pr)

	do := func(method, path, body, key string) (int, gjson.Result) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, gjson.ParseBytes(b)
	}

	if code, _ := do("GET", "/v1/models", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without key: status %d", code)
	}
	if code, r := do("GET", "/v1/models", "", "sk-x"); code != 200 || len(r.Get("data").Array()) != 5 {
		t.Errorf("models: %d %s", code, r.Raw)
	}
	code, r := do("POST", "/v1/chat/completions", `{"model":"mock-chat","messages":[{"role":"user","content":"ping"}]}`, "sk-x")
	if code != 200 || r.Get("choices.0.message.content").Str != "Echo: ping" {
		t.Errorf("chat: %d %s", code, r.Raw)
	}
	code, r = do("POST", "/v1/embeddings", `{"model":"mock-embedding","input":"x"}`, "sk-x")
	if code != 200 || len(r.Get("data.0.embedding").Array()) != 8 {
		t.Errorf("embeddings: %d %s", code, r.Raw)
	}

	// A stream over real HTTP.
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(`{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"a b"}]}`))
	req.Header.Set("Authorization", "Bearer sk-x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
		t.Errorf("stream: %q %q", resp.Header.Get("Content-Type"), b)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancellation")
	}
}

func TestRunBadArguments(t *testing.T) {
	tests := []struct {
		args []string
		help bool
	}{
		{[]string{"-nope"}, false},
		{[]string{"-latency", "-1s"}, false},
		{[]string{"-chunk-delay", "soon"}, false},
		{[]string{"-embedding-dimensions", "0"}, false},
		{[]string{"extra"}, false},
		{[]string{"-listen", "not an address"}, false},
		{[]string{"-h"}, true},
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run(%q) succeeded", tt.args)
			continue
		}
		if errors.Is(err, flag.ErrHelp) != tt.help {
			t.Errorf("run(%q) = %v", tt.args, err)
		}
	}
}

// TestSignalShutdown runs the command in a child process and stops it with
// SIGTERM and SIGINT.
func TestSignalShutdown(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on windows")
	}
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MOCKUPSTREAM_RUN_MAIN=1", "MOCKUPSTREAM_ARGS=-listen 127.0.0.1:0")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		base := readAddr(t, stdout)
		resp, err := http.Get(base + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case err := <-waited:
			if err != nil {
				t.Errorf("%v: exit: %v", sig, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: process did not exit", sig)
		}
	}
}
