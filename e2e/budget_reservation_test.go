package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// reserveChat is a streamed chat for gpt-4o-mini on the slow upstream
// asking for at most 6 output tokens: the 6 the slow stream reports.
func reserveChat(stream bool) string {
	return fmt.Sprintf(`{"model":"slow/gpt-4o-mini","stream":%v,"max_tokens":6,"messages":[{"role":"user","content":"hi"}]}`, stream)
}

// reservation is the worst-case cost the gateway reserves for
// reserveChat(true) (its estimated input and 6 output tokens) and that
// estimate, which the slow upstream is told to report as the prompt's
// tokens, so that each request's real cost equals its reservation.
func reservation(t testing.TB) (usd float64, prompt int64) {
	t.Helper()
	in, err := anthropic.EstimateMessagesInputTokens([]byte(reserveChat(true)))
	if err != nil {
		t.Fatal(err)
	}
	b, ok := catalog.Price("openai", "gpt-4o-mini", catalog.Usage{InputTokens: in, OutputTokens: 6, TotalTokens: in + 6})
	if !ok || b.Total <= 0 {
		t.Fatal("gpt-4o-mini has no catalog price")
	}
	return b.Total, in
}

// reserveBurst sends n reserveChat streams at once, spread over the gateways,
// and counts the answers by status.
func reserveBurst(t *testing.T, gs []*gateway, n int) map[int]int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := sendOnce("POST", gs[i%len(gs)].URL+"/v1/chat/completions", reserveChat(true),
				append(bearer(masterKey), userPathHeader, "/team/app"))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				codes[-1]++
				return
			}
			if res.Status == 429 && !strings.Contains(string(res.Body), "budget_exceeded") {
				codes[-429]++
				return
			}
			codes[res.Status]++
		}()
	}
	close(start)
	wg.Wait()
	return codes
}

// checkReservedBurst asserts the outcome of 60 streams against a budget
// of 10.5 reservations: spend within the cap, admitted within one of the
// 10 it allows.
func checkReservedBurst(t *testing.T, gs []*gateway, each, amount float64) {
	t.Helper()
	codes := reserveBurst(t, gs, 60)
	if codes[200]+codes[429] != 60 {
		t.Fatalf("answers %v", codes)
	}
	fit := 10
	if codes[200] < fit-1 || codes[200] > fit {
		t.Fatalf("admitted %d of 60, want %d (within one) (answers %v)", codes[200], fit, codes)
	}
	for _, g := range gs {
		spent := budgetSpent(t, g, "/team", "daily")
		if spent > amount {
			t.Fatalf("spent %v past the cap %v", spent, amount)
		}
		if want := float64(codes[200]) * each; spent < want*0.999 || spent > want*1.001 {
			t.Fatalf("spent %v, want %v (%d admitted)", spent, want, codes[200])
		}
	}
	t.Logf("%d processes: %d of 60 concurrent streams admitted (the cap allows %d); spend %.4g USD of a %.4g USD cap",
		len(gs), codes[200], fit, budgetSpent(t, gs[0], "/team", "daily"), amount)
}

// TestBudgetReservationOneProcess: 60 concurrent slow streams against a
// budget of 10.5 worst-case costs on one process: 10 are admitted and
// the spend stays within the cap.
func TestBudgetReservationOneProcess(t *testing.T) {
	clearEnv(t)
	each, prompt := reservation(t)
	amount := 10.5 * each
	t.Setenv("SET_BUDGET_TEAM", fmt.Sprintf("daily=%g", amount))
	u := newSlowUpstream(t, 40*time.Millisecond, 5)
	u.prompt = prompt
	g := startGateway(t, "master_key "+masterKey+"\nstorage "+filepath.Join(t.TempDir(), "budgets.db")+"\n"+u.block("slow"))
	checkReservedBurst(t, []*gateway{g}, each, amount)
}

// TestBudgetReservationThreeProcesses: the same across three processes
// sharing the spend and the reservations through Redis.
func TestBudgetReservationThreeProcesses(t *testing.T) {
	each, amount, gs := reservingProcesses(t)
	checkReservedBurst(t, gs, each, amount)
}

// reservingProcesses starts three processes on PostgreSQL and Redis with
// a daily budget on /team of 10.5 times each, the worst-case (and real)
// cost of reserveChat(true), and the extra environment given, each
// warmed up with one request on /warm (no budget).
func reservingProcesses(t *testing.T, env ...string) (each, amount float64, gs []*gateway) {
	t.Helper()
	clearEnv(t)
	each, prompt := reservation(t)
	amount = 10.5 * each
	dsn := pgtest.NewDatabase(t)
	redisURL, prefix := redistest.New(t)
	u := newSlowUpstream(t, 40*time.Millisecond, 5)
	u.prompt = prompt
	block := strings.Join([]string{
		"storage postgres " + dsn,
		"redis " + redisURL,
		"master_key " + masterKey,
		strings.TrimSpace(u.block("slow")),
	}, "\n")
	env = append([]string{"MODELGATE_REDIS_PREFIX=" + prefix, fmt.Sprintf("SET_BUDGET_TEAM=daily=%g", amount)}, env...)
	ps := startGatewayProcesses(t, 3, block, env...)
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range ps {
				t.Log(p.logTail(30))
			}
		}
	})
	gs = make([]*gateway, len(ps))
	for i, p := range ps {
		gs[i] = p.G
		// Each process lists the slow upstream's models; /warm has no budget.
		if res := request(t, "POST", p.G.URL+"/v1/chat/completions", reserveChat(false),
			append(bearer(masterKey), userPathHeader, "/warm")...); res.Status != 200 {
			t.Fatalf("%s warm-up: %d %s", p.Name, res.Status, res.Body)
		}
	}
	return each, amount, gs
}

// TestBudgetReservationWithRateLimitThreeProcesses: with a concurrency
// rule on the budgeted path (its admission and the reservation share one
// Redis round trip), a request either limit refuses gives back what the
// other took: after a burst that both refuse, requests sent one at a
// time are admitted until exactly the 10 reservations the cap allows have
// been spent, and no slot is left in flight.
func TestBudgetReservationWithRateLimitThreeProcesses(t *testing.T) {
	each, amount, gs := reservingProcesses(t, "SET_RATE_LIMIT_TEAM=concurrent=4")
	codes := reserveBurst(t, gs, 60)
	if codes[200] < 1 || codes[200] > 4 || codes[200]+codes[429]+codes[-429] != 60 {
		t.Fatalf("burst answers %v: want 1 to 4 admitted under concurrent=4, the rest refused", codes)
	}
	admitted := codes[200]
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatalf("still admitting after %d requests: the cap allows 10", admitted)
		}
		res := request(t, "POST", gs[i%len(gs)].URL+"/v1/chat/completions", reserveChat(true),
			append(bearer(masterKey), userPathHeader, "/team/app")...)
		if res.Status == 429 && strings.Contains(string(res.Body), "budget_exceeded") {
			break
		}
		if res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
		admitted++
	}
	if admitted != 10 {
		t.Fatalf("admitted %d in all (%v in the burst), want the 10 the cap allows: a refused request kept its reservation or slot", admitted, codes)
	}
	for _, g := range gs {
		if spent := budgetSpent(t, g, "/team", "daily"); spent > amount || spent < 10*each*0.999 || spent > 10*each*1.001 {
			t.Fatalf("spent %v, want %v (cap %v)", spent, 10*each, amount)
		}
	}
	res := adminCall(t, gs[0], "GET", "/admin/rate-limits", "")
	found := false
	for _, r := range res.JSON(t)["rules"].([]any) {
		if m := r.(map[string]any); m["subject"] == "/team" {
			found = true
			if m["in_flight"] != 0.0 {
				t.Fatalf("slots still in flight: %v", m)
			}
		}
	}
	if !found {
		t.Fatalf("no rule on /team in %s", res.Body)
	}
}

// TestBudgetReservationReleasedOnDisconnect: a stream whose client goes
// away mid-stream gives its reservation back: a budget that fits one
// reservation refuses a second request while the stream runs and admits
// it once the client has left.
func TestBudgetReservationReleasedOnDisconnect(t *testing.T) {
	clearEnv(t)
	each, _ := reservation(t)
	t.Setenv("SET_BUDGET_TEAM", fmt.Sprintf("daily=%g", 1.5*each))
	u := newSlowUpstream(t, 100*time.Millisecond, 100) // streams of 10 s
	g := startGateway(t, "master_key "+masterKey+"\nstorage "+filepath.Join(t.TempDir(), "budgets.db")+"\n"+u.block("slow"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", g.URL+"/v1/chat/completions", strings.NewReader(reserveChat(true)))
	req.Header.Set("Authorization", "Bearer "+masterKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(userPathHeader, "/team")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("stream: %d %s", res.StatusCode, b)
	}
	if _, err := res.Body.Read(make([]byte, 64)); err != nil {
		t.Fatalf("first event: %v", err)
	}
	second := func() response {
		return request(t, "POST", g.URL+"/v1/chat/completions", reserveChat(false), append(bearer(masterKey), userPathHeader, "/team")...)
	}
	second().ExpectErr(t, 429, "rate_limit_error", "budget_exceeded")
	cancel()
	_ = res.Body.Close()
	var last response
	poll(t, 5*time.Second, "the disconnected stream's reservation given back", func() bool {
		last = second()
		return last.Status == 200
	})
	if spent := budgetSpent(t, g, "/team", "daily"); spent > 1.5*each {
		t.Fatalf("spent %v past the cap", spent)
	}
}
