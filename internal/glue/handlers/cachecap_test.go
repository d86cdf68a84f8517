package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// memCacheStorage is a cache.Storage in memory.
type memCacheStorage struct {
	mu      sync.Mutex
	entries map[cache.Key]cache.Entry
}

func (s *memCacheStorage) Get(k cache.Key) (cache.Entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[k]
	return e, ok, nil
}

func (s *memCacheStorage) Put(e cache.Entry) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[e.Key] = e
	return e.BodySize(), nil
}

func (s *memCacheStorage) Delete(keys []cache.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.entries, k)
	}
	return nil
}

func (s *memCacheStorage) Scan(fn func(cache.Meta) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		if err := fn(e.Meta); err != nil {
			return err
		}
	}
	return nil
}

// cacheCapEntryBytes is the entry cap of cacheCapSetup's cache.
const cacheCapEntryBytes = 1000

// cacheCapSetup returns a response cache of 1 MiB whose entries are
// capped at cacheCapEntryBytes, and the proxy that resolves
// gpt-4o-mini to the openai provider for it.
func cacheCapSetup(t *testing.T) (*caddymodule.ResponseCache, *proxy.Service) {
	t.Helper()
	c, err := cache.Open(cache.Options{Storage: &memCacheStorage{entries: map[cache.Key]cache.Entry{}},
		MaxBytes: 1 << 20, MaxEntryBytes: cacheCapEntryBytes})
	if err != nil {
		t.Fatal(err)
	}
	reg := providers.NewRegistry([]providers.Entry{
		{Provider: &budgetUpstream{name: "openai", typ: "openai"}, Models: []string{"gpt-4o-mini"}, Allowlist: true},
	}, providers.RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reg.Start(ctx)
	<-reg.Ready()
	return &caddymodule.ResponseCache{Cache: c, MaxBodyBytes: 1 << 20}, &proxy.Service{Registry: reg, MaxBodyBytes: 1 << 20}
}

// cacheCapStream is a stream of n 100-byte events.
func cacheCapStream(n int) [][]byte {
	evs := make([][]byte, n)
	for i := range evs {
		evs[i] = fmt.Appendf(nil, "data: %-92d\n\n", i)
	}
	return evs
}

// cacheCapServe serves one chat stream request through serveCached, the
// answer written by next.
func cacheCapServe(rc *caddymodule.ResponseCache, px *proxy.Service, next caddyhttp.HandlerFunc) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
	rt, _ := routes.Lookup("POST", "/v1/chat/completions")
	w := httptest.NewRecorder()
	_ = serveCached(rc, px, rt, w, r, next)
	return w
}

// cacheCapAnswer writes evs as a complete 200 stream from openai, each
// event flushed, as the proxy does; between calls to pause (when set)
// after each event it may hold the answer.
func cacheCapAnswer(w http.ResponseWriter, r *http.Request, evs [][]byte, pause func(i int)) {
	info := reqinfo.From(r.Context())
	info.ProviderName, info.ProviderType, info.ResolvedModel, info.Stream = "openai", "openai", "gpt-4o-mini", true
	info.AddAttempt(reqinfo.Attempt{Provider: "openai", StatusCode: http.StatusOK})
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, ev := range evs {
		_, _ = w.Write(ev)
		_ = rc.Flush()
		if pause != nil {
			pause(i)
		}
	}
}

// TestCacheAnswerUnderTheEntryCapIsStored: the control for the test
// below: an answer of at most max_entry_bytes is stored and hit.
func TestCacheAnswerUnderTheEntryCapIsStored(t *testing.T) {
	rc, px := cacheCapSetup(t)
	evs := cacheCapStream(cacheCapEntryBytes / 100)
	calls := 0
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		calls++
		cacheCapAnswer(w, r, evs, nil)
		return nil
	})
	first, second := cacheCapServe(rc, px, next), cacheCapServe(rc, px, next)
	if first.Header().Get(CacheHeader) != CacheMiss || second.Header().Get(CacheHeader) != CacheHit || calls != 1 ||
		!bytes.Equal(second.Body.Bytes(), bytes.Join(evs, nil)) {
		t.Fatalf("%s then %s after %d calls: %q", first.Header().Get(CacheHeader), second.Header().Get(CacheHeader), calls, second.Body)
	}
}

// TestCacheAnswerOverTheEntryCap: an answer that outgrows
// max_entry_bytes is no longer buffered from the write that takes it
// over (the copy is released), passes through intact and is not stored;
// the identical request waiting for it proceeds (makes its own call) as
// soon as the leader gave up, while the leader's answer is still coming.
func TestCacheAnswerOverTheEntryCap(t *testing.T) {
	rc, px := cacheCapSetup(t)
	evs := cacheCapStream(3 * cacheCapEntryBytes / 100) // 3,000 bytes
	over := cacheCapEntryBytes/100 + 1                  // the event that takes the copy over
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64
		leaderIn, leaderOn := make(chan struct{}), make(chan struct{})
		leaderHeld, leaderEnd := make(chan struct{}), make(chan struct{})
		waiterCalled := make(chan struct{})
		var copyAfterOver string
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			if calls.Add(1) > 1 { // the waiter, making its own call
				close(waiterCalled)
				cacheCapAnswer(w, r, evs, nil)
				return nil
			}
			close(leaderIn)
			<-leaderOn
			cacheCapAnswer(w, r, evs, func(i int) {
				if i+1 != over {
					return
				}
				cw := w.(*cacheWriter)
				if !cw.dropped || cw.chunks != nil || cw.open != nil {
					copyAfterOver = fmt.Sprintf("dropped %v, %d chunks, %d open bytes", cw.dropped, len(cw.chunks), len(cw.open))
				}
				close(leaderHeld)
				<-leaderEnd // still streaming while the waiter goes on
			})
			return nil
		})
		leader := make(chan *httptest.ResponseRecorder)
		go func() { leader <- cacheCapServe(rc, px, next) }()
		<-leaderIn
		waiter := make(chan *httptest.ResponseRecorder)
		go func() { waiter <- cacheCapServe(rc, px, next) }()
		synctest.Wait() // the waiter waits for the leader's flight
		close(leaderOn)
		<-leaderHeld
		if copyAfterOver != "" {
			t.Errorf("the copy was kept past max_entry_bytes: %s", copyAfterOver)
		}
		synctest.Wait()
		select {
		case <-waiterCalled:
		default:
			t.Error("the waiting request still waits for a leader whose answer will not be stored")
		}
		close(leaderEnd)
		lw, ww := <-leader, <-waiter
		want := bytes.Join(evs, nil)
		for _, w := range []*httptest.ResponseRecorder{lw, ww} {
			if w.Code != http.StatusOK || w.Header().Get(CacheHeader) != CacheMiss || !bytes.Equal(w.Body.Bytes(), want) {
				t.Errorf("an answer over the cap: %d %s, %d of %d bytes intact", w.Code, w.Header().Get(CacheHeader),
					len(w.Body.Bytes()), len(want))
			}
		}
	})
	if s, err := rc.Stats(); err != nil || s.Entries != 0 {
		t.Fatalf("an answer over max_entry_bytes was stored: %+v, %v", s, err)
	}
}
