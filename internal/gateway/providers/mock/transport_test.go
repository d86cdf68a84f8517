package mock

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

const chatBody = `{"model":"mock-chat","messages":[{"role":"user","content":"hello"}]}`

// longStream is a streamed chat request with many words.
func longStream(words int) string {
	return `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("word ", words) + `"}]}`
}

// watched wraps h, closing done when a ServeHTTP call returns.
func watched(h http.Handler) (http.Handler, <-chan struct{}) {
	done := make(chan struct{})
	var once atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if !once.Swap(true) {
			close(done)
		}
	}), done
}

func post(t *testing.T, ctx context.Context, rt http.RoundTripper, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://mock.invalid/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return rt.RoundTrip(req)
}

// settle waits, in a synctest bubble, until the bubble's other
// goroutines are blocked or gone, and fails if the bubble's goroutine
// count (bubbleGoroutines) is then above base.
func settle(t *testing.T, base int) {
	t.Helper()
	synctest.Wait()
	if n := bubbleGoroutines(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d, want <= %d\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// bubbleGoroutines counts the goroutines of the caller's synctest bubble,
// from the headers of a dump of every goroutine: runtime.NumGoroutine
// also counts those of the process outside the bubble (another test's
// that is still ending), which made the check flaky.
func bubbleGoroutines() int {
	buf := make([]byte, 1<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	// The first header is the caller's: "goroutine N [running, synctest bubble B]:".
	first, _, _ := strings.Cut(dump, "\n")
	i := strings.Index(first, "synctest bubble ")
	if i < 0 {
		return runtime.NumGoroutine()
	}
	bubble := strings.TrimSuffix(first[i:], "]:")
	n := 0
	for _, line := range strings.Split(dump, "\n") {
		if strings.HasPrefix(line, "goroutine ") && strings.Contains(line, bubble+"]") {
			n++
		}
	}
	return n
}

func TestTransportChat(t *testing.T) {
	client := &http.Client{Transport: NewTransport(Options{APIKey: "k"})}
	req, _ := http.NewRequest(http.MethodPost, "http://anything/v1/chat/completions", strings.NewReader(chatBody))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Status != "200 OK" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("status %q, headers %v", resp.Status, resp.Header)
	}
	if resp.ContentLength != int64(len(b)) {
		t.Errorf("ContentLength = %d, body has %d bytes", resp.ContentLength, len(b))
	}
	if got := mustJSON(t, string(b)).Get("choices.0.message.content").Str; got != "Echo: hello" {
		t.Errorf("content = %q", got)
	}

	// Without the key: 401 through the transport too.
	resp, err = client.Post("http://anything/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status without key = %d", resp.StatusCode)
	}
}

func TestTransportResponseWriter(t *testing.T) {
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
		wantBody   string
		wantHeader string // value of X-Test
		wantErr    bool   // from RoundTrip
		wantReadEr bool   // from reading the body
	}{
		{name: "nothing written", handler: func(w http.ResponseWriter, r *http.Request) {}, wantStatus: 200},
		{name: "status only", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Test", "a")
			w.WriteHeader(http.StatusTeapot)
			w.Header().Set("X-Test", "changed after commit")
		}, wantStatus: 418, wantHeader: "a"},
		{name: "informational ignored", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "x")
		}, wantStatus: 201, wantBody: "x"},
		{name: "echo request body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Test", r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
			io.Copy(w, r.Body)
		}, wantStatus: 200, wantBody: chatBody, wantHeader: "POST /v1/chat/completions application/json"},
		{name: "flusher", handler: func(w http.ResponseWriter, r *http.Request) {
			f, ok := w.(http.Flusher)
			if !ok {
				w.WriteHeader(500)
				return
			}
			f.Flush()
			io.WriteString(w, "flushed")
		}, wantStatus: 200, wantBody: "flushed"},
		{name: "panic before write", handler: func(w http.ResponseWriter, r *http.Request) { panic("boom") }, wantErr: true},
		{name: "panic after write", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "partial")
			panic("boom")
		}, wantStatus: 200, wantReadEr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := post(t, context.Background(), &transport{handler: tt.handler}, chatBody)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("RoundTrip succeeded, want error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if (err != nil) != tt.wantReadEr {
				t.Errorf("read error = %v, want error: %v", err, tt.wantReadEr)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if !tt.wantReadEr && string(b) != tt.wantBody {
				t.Errorf("body = %q, want %q", b, tt.wantBody)
			}
			if got := resp.Header.Get("X-Test"); got != tt.wantHeader {
				t.Errorf("X-Test = %q, want %q", got, tt.wantHeader)
			}
		})
	}
}

// TestTransportStreamsIncrementally checks that the first event reaches the
// caller while the handler is still streaming.
func TestTransportStreamsIncrementally(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 30 * time.Millisecond
		h, done := watched(NewHandler(Options{ChunkDelay: delay}))
		start := time.Now()
		resp, err := post(t, context.Background(), &transport{handler: h}, longStream(10))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type = %q", ct)
		}
		r := bufio.NewReader(resp.Body)
		first, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(first, `"role":"assistant"`) {
			t.Errorf("first event = %q", first)
		}
		select {
		case <-done:
			t.Fatal("handler finished before the first event was read: response is not streamed")
		default:
		}
		// In bubble time the first event comes at once.
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("first event after %v, want at once", elapsed)
		}
		rest, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		events := sseEvents(t, first+string(rest))
		// ChunkDelay comes before every chunk but the first; [DONE]
		// follows the last chunk at once.
		if want := time.Duration(len(events)-2) * delay; elapsed != want {
			t.Errorf("whole stream of %d events after %v, want %v", len(events), elapsed, want)
		}
		if got := reassemble(t, events).content; got != "Echo: "+strings.Repeat("word ", 10) {
			t.Errorf("content = %q", got)
		}
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("handler still running after the body was read")
		}
	})
}

func TestTransportBodyCloseStopsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines()
		h, done := watched(NewHandler(Options{ChunkDelay: 5 * time.Millisecond}))
		resp, err := post(t, context.Background(), &transport{handler: h}, longStream(10000))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("handler still running after Body.Close")
		}
		if _, err := resp.Body.Read(make([]byte, 10)); !errors.Is(err, errClosedBody) {
			t.Errorf("read after close: %v", err)
		}
		settle(t, base)
	})
}

func TestTransportBodyCloseWithoutChunkDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines()
		h, done := watched(NewHandler(Options{}))
		resp, err := post(t, context.Background(), &transport{handler: h}, longStream(10000))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // without reading anything: the handler is blocked writing
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("handler still running after Body.Close")
		}
		settle(t, base)
	})
}

func TestTransportContextCancelMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines()
		h, done := watched(NewHandler(Options{ChunkDelay: 5 * time.Millisecond}))
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := post(t, ctx, &transport{handler: h}, longStream(10000))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, err = io.ReadAll(r)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("read after cancel: %v, want context.Canceled", err)
		}
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("handler still running after cancellation")
		}
		resp.Body.Close()
		settle(t, base)
	})
}

func TestTransportCancelDuringLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines()
		h, done := watched(NewHandler(Options{Latency: 10 * time.Second}))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		resp, err := post(t, ctx, &transport{handler: h}, chatBody)
		if err == nil {
			resp.Body.Close()
			t.Fatal("RoundTrip succeeded despite cancellation")
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if elapsed := time.Since(start); elapsed != 30*time.Millisecond {
			t.Errorf("RoundTrip returned after %v, want the context's 30ms", elapsed)
		}
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("handler still waiting after cancellation")
		}
		settle(t, base)
	})
}

func TestTransportLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const latency = 60 * time.Millisecond
		start := time.Now()
		resp, err := post(t, context.Background(), NewTransport(Options{Latency: latency}), chatBody)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if elapsed := time.Since(start); elapsed != latency {
			t.Errorf("response after %v, want the %v latency", elapsed, latency)
		}
	})
}

// TestTransportNoLeak runs many requests, finished and abandoned in
// various ways, and checks that no goroutine is left behind.
func TestTransportNoLeak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleGoroutines()
		rt := NewTransport(Options{})
		for i := 0; i < 30; i++ {
			body := chatBody
			if i%2 == 0 {
				body = longStream(200)
			}
			ctx, cancel := context.WithCancel(context.Background())
			resp, err := post(t, ctx, rt, body)
			if err != nil {
				t.Fatal(err)
			}
			switch i % 3 {
			case 0: // read to the end
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			case 1: // abandon unread, the context staying alive
				resp.Body.Close()
			case 2: // cancel, then drain
				cancel()
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			defer cancel()
		}
		settle(t, base)
	})
}

func TestTransportNilBodyAndDefaultStatus(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://mock/v1/models", nil)
	resp, err := NewTransport(Options{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"mock-chat"`) {
		t.Errorf("status %d body %s", resp.StatusCode, b)
	}
}
