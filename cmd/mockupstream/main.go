// Command mockupstream serves modelgate's deterministic mock model (package
// providers/mock) as a standalone OpenAI-compatible HTTP server.
//
// It exists for benchmarks and black-box tests: point the gateway (or any
// OpenAI client) at it to get fast, reproducible answers without a real
// model or network access. Answers echo the last user message, tool
// definitions yield a tool call, and embeddings are deterministic unit
// vectors.
//
// Usage:
//
//	mockupstream [-listen 127.0.0.1:9999] [-latency 0s] [-chunk-delay 0s]
//	             [-api-key KEY] [-embedding-dimensions 16]
//
// Once listening it prints "mockupstream listening on http://ADDR" to
// standard output (with the real port when -listen ends in ":0"). SIGINT
// and SIGTERM shut it down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelgate/modelgate/internal/gateway/providers/mock"
)

// shutdownTimeout bounds the wait for in-flight requests at shutdown.
const shutdownTimeout = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "mockupstream:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx is done, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mockupstream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:9999", "address to listen on (host:port; port 0 picks a free one)")
	latency := fs.Duration("latency", 0, "delay before the first byte of every response")
	chunkDelay := fs.Duration("chunk-delay", 0, "delay before each generated chunk of a stream but the first")
	apiKey := fs.String("api-key", "", `if set, require "Authorization: Bearer <key>"`)
	dims := fs.Int("embedding-dimensions", mock.DefaultEmbeddingDimensions, "default embedding vector length")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	case *latency < 0:
		return errors.New("-latency must not be negative")
	case *chunkDelay < 0:
		return errors.New("-chunk-delay must not be negative")
	case *dims < 1 || *dims > 8192:
		return errors.New("-embedding-dimensions must be between 1 and 8192")
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: mock.NewHandler(mock.Options{
			Latency:             *latency,
			ChunkDelay:          *chunkDelay,
			APIKey:              *apiKey,
			EmbeddingDimensions: *dims,
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "mockupstream listening on http://%s\n", ln.Addr())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}
