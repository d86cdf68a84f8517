// Command loadgen drives HTTP load at an OpenAI-compatible chat endpoint
// or an Anthropic-compatible messages endpoint and prints what it
// measured as one JSON object (package stats, type Result) on stdout.
//
// N workers each send one request, read the whole answer, and send the
// next (a closed loop), for the warm-up and then the measured duration.
// With -rate the requests start on a fixed schedule instead, whatever
// the answers take (an open loop, so that two servers are compared at
// the same load): each worker takes the next due time, waits for it and
// sends its request. A request counts when it starts after the warm-up;
// workers stop starting requests at the end and the ones in flight
// finish. Streams are read line by line to time the first event carrying
// answer text (TTFT) and the last byte (TTLT).
//
// Usage:
//
//	loadgen -url http://127.0.0.1:8080 [-shape chat|messages] [-stream]
//	        [-concurrency 10] [-rate 0] [-duration 5s] [-warmup 1s]
//	        [-body-size 1024] [-api-key KEY] [-model mock-chat] [-max-tokens 32]
//
// The harness (bench/harness) runs it once per benchmark cell, as its own
// process, so the client's CPU is visible apart from the servers'.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// run parses args, drives the load and writes the JSON result to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	res, err := newGenerator(cfg).run(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// config is the parsed command line.
type config struct {
	url         string
	shape       string
	stream      bool
	concurrency int
	rate        float64
	duration    time.Duration
	warmup      time.Duration
	timeout     time.Duration
	bodySize    int
	apiKey      string
	model       string
	maxTokens   int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080", "target base URL (the shape's path is appended) or full endpoint URL")
	fs.StringVar(&c.shape, "shape", "chat", "request shape: chat (/v1/chat/completions) or messages (/v1/messages)")
	fs.BoolVar(&c.stream, "stream", false, "ask for a streamed answer and time first and last token")
	fs.IntVar(&c.concurrency, "concurrency", 10, "workers: requests in flight (closed loop), or at most in flight (with -rate)")
	fs.Float64Var(&c.rate, "rate", 0, "requests a second, started on a fixed schedule whatever the answers take (open loop, up to -concurrency in flight; a request no worker is free for starts late, and is timed from when it started); 0: closed loop")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "measured duration")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "warm-up before measuring (not counted)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "per-request timeout")
	fs.IntVar(&c.bodySize, "body-size", 1024, "request body length in bytes (the user message is padded to reach it)")
	fs.StringVar(&c.apiKey, "api-key", "", `sent as "Authorization: Bearer <key>" when set`)
	fs.StringVar(&c.model, "model", "mock-chat", "model name in the request")
	fs.IntVar(&c.maxTokens, "max-tokens", 32, "max_tokens in the request (caps the mock's echo, so answers stay small)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	case c.shape != "chat" && c.shape != "messages":
		return c, fmt.Errorf("-shape must be chat or messages, not %q", c.shape)
	case c.concurrency < 1:
		return c, errors.New("-concurrency must be at least 1")
	case c.rate < 0 || math.IsNaN(c.rate) || math.IsInf(c.rate, 0):
		return c, errors.New("-rate must be a positive number of requests a second, or 0")
	case c.duration <= 0:
		return c, errors.New("-duration must be positive")
	case c.warmup < 0:
		return c, errors.New("-warmup must not be negative")
	case c.maxTokens < 1:
		return c, errors.New("-max-tokens must be at least 1")
	}
	u, err := url.Parse(c.url)
	if err != nil || u.Host == "" {
		return c, fmt.Errorf("-url %q is not an absolute URL", c.url)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = shapePath(c.shape)
	}
	c.url = u.String()
	return c, nil
}

// shapePath is the endpoint path for a request shape.
func shapePath(shape string) string {
	if shape == "messages" {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}
