package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// burst sends n simultaneous chat requests for model, from user paths
// made by pathOf, and counts the answers by status. Every 429 must be a
// rate_limit_error with Retry-After: 1 (a full concurrency cap).
func burst(t *testing.T, g *gateway, model string, n int, pathOf func(i int) string) map[int]int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		wg       sync.WaitGroup
		start    = make(chan struct{})
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := slowChat(model, false)
			req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+masterKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(userPathHeader, pathOf(i))
			<-start
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 429 && (resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(b), `"rate_limit_exceeded"`)) {
				t.Errorf("429 without Retry-After: 1 or the error code: %v %s", resp.Header, b)
			}
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		}(i)
	}
	close(start)
	wg.Wait()
	return statuses
}

// openStream starts a streamed chat for model and userPath and returns
// its body after the first event arrived, or the status when it was
// refused.
func openStream(t *testing.T, ctx context.Context, g *gateway, model, userPath string) (*http.Response, *bufio.Reader) {
	t.Helper()
	body := slowChat(model, true)
	req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+masterKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(userPathHeader, userPath)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if resp.StatusCode == 200 {
		if ev, err := readEvent(br); err != nil || !strings.HasPrefix(ev, "data: ") {
			t.Fatalf("first event: %q %v", ev, err)
		}
	}
	return resp, br
}

// TestRLConcurrencyCap: with a concurrency cap of 5, 200 simultaneous
// requests against a slow upstream never put more than 5 in flight at the
// upstream, for a user-path cap and for a provider cap alike; streams hold
// their slot until they end, and every slot is released after streams
// finish and after clients disconnect.
func TestRLConcurrencyCap(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TEAM", "concurrent=5")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_SLOW_TWO", "concurrent=5")
	one := newSlowUpstream(t, 150*time.Millisecond, 20)
	two := newSlowUpstream(t, 150*time.Millisecond, 20)
	g := startGateway(t, mockBlock(one.block("slow")+two.block("slow-two")))
	// Warm up: both listings are in before the burst.
	for _, m := range []string{"slow/slow-model", "slow-two/slow-model"} {
		res := request(t, "POST", g.URL+"/v1/chat/completions", slowChat(m, false), bearer(masterKey)...)
		if res.Status != 200 {
			t.Fatalf("warm-up %s: %d %s", m, res.Status, res.Body)
		}
	}
	one.maxSeen.Store(0)

	// User-path cap: 200 callers under /team, through the first provider.
	st := burst(t, g, "slow-model", 200, func(i int) string { return fmt.Sprintf("/team/u%d", i) })
	t.Logf("user-path cap 5, 200 simultaneous requests: statuses %v, max in flight at the upstream %d", st, one.maxSeen.Load())
	if one.maxSeen.Load() > 5 || st[200] < 5 || st[200]+st[429] != 200 {
		t.Fatalf("user-path cap: statuses %v, upstream saw %d at once", st, one.maxSeen.Load())
	}
	waitSlotsFree(t, g)

	// Provider cap: 200 callers on unlimited paths, pinned to slow-two.
	pst := burst(t, g, "slow-two/slow-model", 200, func(i int) string { return fmt.Sprintf("/free/u%d", i) })
	t.Logf("provider cap 5, 200 simultaneous requests: statuses %v, max in flight at the upstream %d, upstream calls %d",
		pst, two.maxSeen.Load(), two.served.Load())
	if two.maxSeen.Load() > 5 || pst[200] < 5 || pst[200]+pst[429] != 200 || two.served.Load() != int64(pst[200])+1 {
		t.Fatalf("provider cap: statuses %v, upstream saw %d at once and %d calls", pst, two.maxSeen.Load(), two.served.Load())
	}
	waitSlotsFree(t, g)

	// Streams hold their slot until they end.
	ctx := context.Background()
	var streams []*http.Response
	var readers []*bufio.Reader
	for i := 0; i < 5; i++ {
		resp, br := openStream(t, ctx, g, "slow-model", fmt.Sprintf("/team/s%d", i))
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i, resp.StatusCode)
		}
		// The concurrency rule's cap and free slots, this stream's taken.
		if l, r := resp.Header.Get("x-ratelimit-limit-concurrency"), resp.Header.Get("x-ratelimit-remaining-concurrency"); l != "5" || r != strconv.Itoa(4-i) {
			t.Fatalf("stream %d: concurrency headers %q, %q; want 5, %d", i, l, r, 4-i)
		}
		streams, readers = append(streams, resp), append(readers, br)
	}
	if r := rateRule(t, g, "user_path", "/team", "concurrent"); r["in_flight"] != 5.0 {
		t.Fatalf("in flight during streams: %v", r)
	}
	late := chatAs(t, g, "/team/late")
	late.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if l, r := late.Header.Get("x-ratelimit-limit-concurrency"), late.Header.Get("x-ratelimit-remaining-concurrency"); l != "5" || r != "0" {
		t.Fatalf("refusal by the concurrency rule: headers %q, %q; want 5, 0", l, r)
	}
	for i, resp := range streams {
		rest, err := io.ReadAll(readers[i])
		resp.Body.Close()
		if err != nil || !strings.Contains(string(rest), "[DONE]") {
			t.Fatalf("stream %d did not finish: %v", i, err)
		}
	}
	waitSlotsFree(t, g)

	// Clients that disconnect mid-stream release their slots (user-path
	// and provider ones), and the upstream calls are cancelled.
	for round := 0; round < 4; round++ {
		model := []string{"slow-model", "slow-two/slow-model"}[round%2]
		ctx, cancel := context.WithCancel(context.Background())
		for i := 0; i < 5; i++ {
			resp, _ := openStream(t, ctx, g, model, fmt.Sprintf("/team/d%d", i))
			if resp.StatusCode != 200 {
				t.Fatalf("round %d stream %d: %d", round, i, resp.StatusCode)
			}
			defer resp.Body.Close()
		}
		cancel()
		cancelled := time.Now()
		waitSlotsFree(t, g)
		// The streams would run 3 s more: the slots went with the clients.
		if d := time.Since(cancelled); d > time.Second {
			t.Fatalf("round %d: slots released %v after the disconnect", round, d)
		}
	}
	poll(t, 5*time.Second, "the upstreams done with the cancelled streams", func() bool {
		return one.inFlight.Load()+two.inFlight.Load() == 0
	})
	if res := chatAs(t, g, "/team/after"); res.Status != 200 {
		t.Fatalf("after disconnects: %d %s", res.Status, res.Body)
	}
	st = burst(t, g, "slow-model", 20, func(i int) string { return fmt.Sprintf("/team/v%d", i) })
	if st[200] < 5 || one.maxSeen.Load() > 5 {
		t.Fatalf("after disconnects: %v, max %d", st, one.maxSeen.Load())
	}
	waitSlotsFree(t, g)
}
