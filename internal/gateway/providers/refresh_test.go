package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// schedule replaces a registry's sleep: it records every wait the listing
// loops ask for, returns at once for waits shorter than block, and holds
// the others (and every wait after the limit-th) until the context ends.
type schedule struct {
	mu    sync.Mutex
	waits []time.Duration
	seen  [][]string // the served model ids when each wait began
	block time.Duration
	limit int
	r     *Registry
}

func (s *schedule) sleep(ctx context.Context, d time.Duration) bool {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.seen = append(s.seen, servedIDs(s.r))
	hold := d >= s.block || (s.limit > 0 && len(s.waits) >= s.limit)
	s.mu.Unlock()
	if hold {
		<-ctx.Done()
		return false
	}
	return ctx.Err() == nil
}

func (s *schedule) recorded() ([]time.Duration, [][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits), slices.Clone(s.seen)
}

func servedIDs(r *Registry) []string {
	var ids []string
	for _, m := range r.Models() {
		ids = append(ids, m.Model.ID)
	}
	return ids
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// inProcess is a client whose requests h answers in the calling
// goroutine, without a network, so that a synctest bubble can see when
// everything waits.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		res.Request = req
		return res, nil
	})}
}

// stopped cancels the registry's context and waits for its listing loops
// to end.
func stopped(t *testing.T, r *Registry, cancel context.CancelFunc) {
	t.Helper()
	cancel()
	done := make(chan struct{})
	go func() { r.loops.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("listing loops still running after shutdown")
	}
}

func TestListingRetriedWithoutWaitingForRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var hits atomic.Int32
		upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) <= 2 {
				http.Error(w, "starting up", http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"late-model"}]}`)
		})
		p := mustNew(t, Options{Name: "up", Type: "openai", BaseURL: "http://upstream.test", Client: inProcess(upstream)})
		r := NewRegistry([]Entry{{Provider: p}}, RegistryOptions{RefreshInterval: time.Hour})
		s := &schedule{r: r, block: time.Hour}
		r.sleep = s.sleep
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		r.Start(ctx)
		<-r.Ready()
		synctest.Wait() // the loop holds in the refresh wait
		if q, m, ok := r.lookup("late-model"); !ok || q != p || m != "late-model" {
			t.Fatalf("lookup of the listed model = %v, %q, %v", q, m, ok)
		}
		waits, seen := s.recorded()
		if want := []time.Duration{time.Second, 2 * time.Second, time.Hour}; !reflect.DeepEqual(waits, want) {
			t.Fatalf("waits %v, want %v", waits, want)
		}
		if seen[0] != nil || seen[1] != nil || !reflect.DeepEqual(seen[2], []string{"late-model"}) {
			t.Fatalf("models served before each wait: %q", seen)
		}
		stopped(t, r, cancel)
		if n := hits.Load(); n != 3 {
			t.Fatalf("upstream asked %d times, want 3", n)
		}
	})
}

// scriptedLister answers its listings from a script, one step per call,
// and fails once the script is used up.
type scriptedLister struct {
	slowLister
	mu     sync.Mutex
	script [][]string // nil step: fail
	calls  int
}

func (s *scriptedLister) ListModels(context.Context) ([]Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls > len(s.script) || s.script[s.calls-1] == nil {
		return nil, errors.New("upstream down")
	}
	var ms []Model
	for _, id := range s.script[s.calls-1] {
		ms = append(ms, Model{ID: id})
	}
	return ms, nil
}

func (s *scriptedLister) callCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func TestListingBackoffDoublesUpToCap(t *testing.T) {
	s, h := time.Second, time.Hour
	cases := []struct {
		name    string
		refresh time.Duration
		want    []time.Duration
	}{
		{"capped by the refresh interval", 10 * s, []time.Duration{s, 2 * s, 4 * s, 8 * s, 10 * s, 10 * s}},
		{"refresh shorter than the first retry", 300 * time.Millisecond, []time.Duration{300 * time.Millisecond, 300 * time.Millisecond}},
		{"no refresh: capped at maxListingRetry", 0, []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s,
			128 * s, 256 * s, maxListingRetry, maxListingRetry}},
		{"long refresh", 24 * h, []time.Duration{s, 2 * s, 4 * s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := &scriptedLister{slowLister: slowLister{name: "down"}}
				r := NewRegistry([]Entry{{Provider: l, Models: []string{"configured"}}}, RegistryOptions{RefreshInterval: c.refresh})
				sch := &schedule{r: r, block: 1000 * h, limit: len(c.want)}
				r.sleep = sch.sleep
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				r.Start(ctx)
				synctest.Wait() // the loop holds in its last wait
				if w, _ := sch.recorded(); len(w) != len(c.want) {
					t.Fatalf("%d waits, want %d", len(w), len(c.want))
				}
				stopped(t, r, cancel)
				waits, seen := sch.recorded()
				if !reflect.DeepEqual(waits, c.want) {
					t.Fatalf("waits %v, want %v", waits, c.want)
				}
				for i, ids := range seen {
					if !reflect.DeepEqual(ids, []string{"configured"}) {
						t.Fatalf("wait %d: served %q, want the configured fallback", i, ids)
					}
				}
				if n := l.callCount(); n != len(c.want) {
					t.Fatalf("%d listing calls, want %d", n, len(c.want))
				}
			})
		})
	}
}

func TestListingFailureAfterSuccessKeepsListAndResetsBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &scriptedLister{slowLister: slowLister{name: "flaky"}, script: [][]string{
			{"a"}, nil, nil, {"b"}, nil, {"c"},
		}}
		r := NewRegistry([]Entry{{Provider: l}}, RegistryOptions{RefreshInterval: time.Minute})
		sch := &schedule{r: r, block: time.Hour, limit: 6}
		r.sleep = sch.sleep
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r.Start(ctx)
		synctest.Wait() // the loop holds in its sixth wait
		if w, _ := sch.recorded(); len(w) != 6 {
			t.Fatalf("%d waits, want the script's 6", len(w))
		}
		stopped(t, r, cancel)
		waits, seen := sch.recorded()
		m, s := time.Minute, time.Second
		if want := []time.Duration{m, s, 2 * s, m, s, m}; !reflect.DeepEqual(waits, want) {
			t.Fatalf("waits %v, want %v", waits, want)
		}
		if want := [][]string{{"a"}, {"a"}, {"a"}, {"b"}, {"b"}, {"c"}}; !reflect.DeepEqual(seen, want) {
			t.Fatalf("served %q, want %q", seen, want)
		}
	})
}

func TestShutdownStopsPendingRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &scriptedLister{slowLister: slowLister{name: "down"}}
		r := NewRegistry([]Entry{{Provider: l}}, RegistryOptions{RefreshInterval: time.Minute})
		sch := &schedule{r: r, block: 0} // every wait holds until shutdown
		r.sleep = sch.sleep
		ctx, cancel := context.WithCancel(context.Background())
		r.Start(ctx)
		synctest.Wait() // the loop holds in its first retry wait
		if w, _ := sch.recorded(); len(w) != 1 {
			t.Fatalf("%d waits, want the first retry wait", len(w))
		}
		stopped(t, r, cancel)
		if n := l.callCount(); n != 1 {
			t.Fatalf("%d listing calls after shutdown, want 1", n)
		}
	})
}

// TestListingRepeatsListedOnce: a listing that names a model twice serves
// it once.
func TestListingRepeatsListedOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"a"},{"id":"b"},{"id":"a"},{"id":"b"},{"id":"c"}]}`)
	}))
	defer srv.Close()
	p, err := New(Options{Name: "up", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry([]Entry{{Provider: p}}, RegistryOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.Start(ctx)
	<-r.Ready()
	if got := servedIDs(r); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("served %v", got)
	}
}
