package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// Sizes of TestCacheMemoryLargeStreams.
const (
	// bigStreamBytes is the length of each streamed answer.
	bigStreamBytes = 100 << 20
	// bigStreams is how many stream at once.
	bigStreams = 6
	// bigStreamSlack is how much higher the heap's peak may be with the
	// cache on than with it off.
	bigStreamSlack = 64 << 20
)

// bigStreamUpstream is an OpenAI-compatible upstream whose every chat
// stream is bigStreamBytes of 32 KiB content chunks, generated as they
// are sent, then the closing chunks with usage.
func bigStreamUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	chunk := []byte(`data: {"id":"chatcmpl-big","object":"chat.completion.chunk","created":1,"model":"big-stream",` +
		`"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 32<<10) + `"},"finish_reason":null}]}` + "\n\n")
	end := "data: {\"id\":\"chatcmpl-big\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"big-stream\"," +
		"\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"chatcmpl-big\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"big-stream\"," +
		"\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"big-stream","object":"model","created":1,"owned_by":"e2e"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for sent := 0; sent < bigStreamBytes; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
		_, _ = io.WriteString(w, end)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// heapInUse is the bytes of the heap's spans in use (runtime.MemStats's
// HeapInuse), read without stopping the world.
func heapInUse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64()
}

// bigStreamsPeak streams bigStreams distinct chat streams at once through
// g, each answered with cacheWant in X-Modelgate-Cache, and returns the peak of the process's in-use heap (gateway, upstream
// and client are all in this process) sampled every millisecond while
// they run. Once the heap passes abortAbove (when not 0) the streams are
// cut and the peak so far returned, so that a run that grows the heap
// without bound stops early.
func bigStreamsPeak(t *testing.T, g *gateway, cacheWant string, abortAbove uint64) uint64 {
	t.Helper()
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	ctx, cut := context.WithCancel(context.Background())
	defer cut()
	var peak uint64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapInUse(samples); h > peak {
				peak = h
				if abortAbove > 0 && h > abortAbove {
					cut()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, bigStreams)
	for i := range bigStreams {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"big-stream","stream":true,"messages":[{"role":"user","content":"stream %d"}]}`, i)
			req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+masterKey)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer res.Body.Close()
			var tail bytes.Buffer
			n, err := io.Copy(io.Discard, io.TeeReader(res.Body, tailWriter{&tail, 64}))
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("after %d bytes: %w", n, err)
			case res.StatusCode != http.StatusOK || res.Header.Get(cacheHeader) != cacheWant || n < bigStreamBytes ||
				!strings.HasSuffix(tail.String(), "data: [DONE]\n\n"):
				errs[i] = fmt.Errorf("%d, %d bytes (%s %q), ending %q", res.StatusCode, n, cacheHeader, res.Header.Get(cacheHeader), tail.String())
			}
		})
	}
	wg.Wait()
	cut()
	<-sampled
	if ctx.Err() != nil && abortAbove > 0 && peak > abortAbove {
		return peak // cut on purpose; the streams' errors say nothing more
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
	}
	return peak
}

// tailWriter keeps the last n bytes written to it.
type tailWriter struct {
	b *bytes.Buffer
	n int
}

func (w tailWriter) Write(p []byte) (int, error) {
	w.b.Write(p)
	if extra := w.b.Len() - w.n; extra > 0 {
		w.b.Next(extra)
	}
	return len(p), nil
}

// TestCacheMemoryLargeStreams: six 100 MB chat streams at once take no
// more than 64 MiB more heap with the response cache on than with it
// off: an answer that outgrows cache.max_entry_bytes stops being
// buffered (issue 35: each was buffered up to cache.max_bytes, 256 MiB).
// Timed and sized for the run without the race detector (.ci/run), which
// streams the 1.2 GB in a few seconds.
func TestCacheMemoryLargeStreams(t *testing.T) {
	if raceDetector {
		t.Skip("streams 1.2 GB through the gateway: run without -race (.ci/run does)")
	}
	clearEnv(t)
	up := bigStreamUpstream(t)
	block := mockBlock(providerBlock("up", "openai", "sk-up-test-0000", up.URL+"/v1", "models big-stream", "models_mode allowlist"))
	g := startGateway(t, block)
	start := time.Now()
	off := bigStreamsPeak(t, g, "", 0)
	t.Logf("cache off: peak heap %d MiB (%s)", off>>20, time.Since(start).Round(time.Millisecond))

	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	g = restartGateway(t, block)
	start = time.Now()
	bound := off + bigStreamSlack
	on := bigStreamsPeak(t, g, "miss", bound)
	t.Logf("cache on: peak heap %d MiB (%s)", on>>20, time.Since(start).Round(time.Millisecond))
	if on > bound {
		t.Fatalf("with the cache on the heap peaked at %d MiB, over the %d MiB of the cache off plus %d MiB",
			on>>20, off>>20, bigStreamSlack>>20)
	}
	if s := adminCall(t, g, "GET", "/admin/cache", "").JSON(t); s["enabled"] != true || s["entries"] != 0.0 || s["misses"] != float64(bigStreams) {
		t.Fatalf("an answer over max_entry_bytes was stored: %v", s)
	}
}
