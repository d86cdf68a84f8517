//go:build linux

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// concurrencyLease is how long a concurrency slot held in Redis outlives
// a process that stopped renewing it (one killed with SIGKILL).
const concurrencyLease = 10 * time.Second

// TestSeveralProcessesAsOne: three gateway processes sharing one
// PostgreSQL database and one Redis key prefix behave as one gateway.
// Audit and usage from all three appear in one usage summary; the live
// log of one shows requests served by the others; a key revoked through
// one is refused at the others within 1 s; 1,000 requests spread across
// them against rpm=100 admit exactly 100; concurrent=5 puts at most 5 in
// flight at the upstream, and reaches 5; the 3 slots of a process killed
// with SIGKILL come back within the lease time.
func TestSeveralProcessesAsOne(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	redisURL, prefix := redistest.New(t)
	slow := newSlowUpstream(t, 300*time.Millisecond, 20)
	hold := newSlowUpstream(t, 200*time.Millisecond, 150) // streams of 30 s
	block := strings.Join([]string{
		"storage postgres " + dsn,
		"redis " + redisURL,
		"master_key " + masterKey,
		"provider demo {\n type mock\n}",
		strings.TrimSpace(slow.block("slow")),
		strings.TrimSpace(hold.block("hold")),
		"admin {\n live_logs_enabled true\n}",
	}, "\n")
	started := time.Now()
	ps := startGatewayProcesses(t, 3, block,
		"MODELGATE_REDIS_PREFIX="+prefix,
		"SET_RATE_LIMIT_RPM=rpm=100",
		"SET_RATE_LIMIT_BIG=rpm=2000",
		"SET_RATE_LIMIT_CONC=concurrent=5",
		"SET_RATE_LIMIT_KILL=concurrent=3",
	)
	t.Logf("three gateway processes on one database and one Redis prefix healthy in %v", time.Since(started).Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range ps {
				t.Log(p.logTail(30))
			}
		}
	})
	// Each process lists both upstreams' models before the checks.
	for _, p := range ps {
		for _, m := range []string{"slow/slow-model", "hold/slow-model"} {
			if res := request(t, "POST", p.G.URL+"/v1/chat/completions", slowChat(m, false),
				append(bearer(masterKey), userPathHeader, "/warm")...); res.Status != 200 {
				t.Fatalf("%s warm-up %s: %d %s", p.Name, m, res.Status, res.Body)
			}
		}
	}
	slow.maxSeen.Store(0)

	t.Run("audit and usage of all three in one summary", func(t *testing.T) { checkSharedRecords(t, ps) })
	t.Run("live log of p2 shows p1 and p3", func(t *testing.T) { checkSharedLiveLog(t, ps) })
	t.Run("key revoked at p1 refused at p2 and p3 within 1s", func(t *testing.T) { checkSharedRevocation(t, ps) })
	t.Run("rpm=100 across three admits exactly 100 of 1000", func(t *testing.T) { checkSharedRPM(t, ps, "/rpm", 100, 1000) })
	// Far below a cap of 2,000 each process counts small batches ahead;
	// the cap still holds exactly.
	t.Run("rpm=2000 across three admits exactly 2000 of 2600", func(t *testing.T) { checkSharedRPM(t, ps, "/big", 2000, 2600) })
	t.Run("concurrent=5 across three", func(t *testing.T) { checkSharedConcurrency(t, ps, slow) })
	t.Run("slots of a killed process come back within the lease", func(t *testing.T) { checkLeasesOfKilled(t, ps) })
}

// procChat sends mockChat to p as userPath with the master key.
func procChat(p *gatewayProcess, userPath string) (response, error) {
	return send("POST", p.G.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), userPathHeader, userPath)...)
}

// summaryRequests is total_requests of GET /admin/usage/summary at p.
func summaryRequests(t *testing.T, p *gatewayProcess) float64 {
	t.Helper()
	res := adminCall(t, p.G, "GET", "/admin/usage/summary?days=1", "")
	if res.Status != 200 {
		t.Fatalf("%s usage summary: %d %s", p.Name, res.Status, res.Body)
	}
	n, _ := res.JSON(t)["total_requests"].(float64)
	return n
}

// auditTotalFor is the audit log's total for one user path at p.
func auditTotalFor(t *testing.T, p *gatewayProcess, userPath string) float64 {
	t.Helper()
	res := adminCall(t, p.G, "GET", "/admin/audit/log?limit=1&user_path="+userPath, "")
	if res.Status != 200 {
		t.Fatalf("%s audit log: %d %s", p.Name, res.Status, res.Body)
	}
	n, _ := res.JSON(t)["total"].(float64)
	return n
}

// checkSharedRecords: five requests served by each process appear, all
// fifteen, in the usage summary and the audit log read at p2.
func checkSharedRecords(t *testing.T, ps []*gatewayProcess) {
	reader := ps[1]
	// The warm-up's records settle first: two equal readings 300 ms apart.
	before := summaryRequests(t, reader)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		n := summaryRequests(t, reader)
		if n == before {
			break
		}
		before = n
	}
	const each = 5
	for _, p := range ps {
		for i := 0; i < each; i++ {
			res, err := procChat(p, "/shared/"+p.Name)
			if err != nil || res.Status != 200 {
				t.Fatalf("%s request %d: %v %d %s", p.Name, i, err, res.Status, res.Body)
			}
		}
	}
	want := before + each*float64(len(ps))
	var got float64
	deadline := time.Now().Add(5 * time.Second)
	for {
		got = summaryRequests(t, reader)
		if got >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("usage summary at %s: total_requests %v before, %v after %d requests at each of %d processes", reader.Name, before, got, each, len(ps))
	if got != want {
		t.Errorf("usage summary at %s counts %v requests, want %v (%v before + %d from each process)", reader.Name, got, want, before, each)
	}
	for _, p := range ps {
		n := auditTotalFor(t, reader, "/shared/"+p.Name)
		for time.Now().Before(deadline) && n < each {
			time.Sleep(50 * time.Millisecond)
			n = auditTotalFor(t, reader, "/shared/"+p.Name)
		}
		if n != each {
			t.Errorf("audit log at %s shows %v entries of the requests served by %s, want %d", reader.Name, n, p.Name, each)
		}
	}
	u := request(t, "GET", reader.G.URL+"/v1/usage", "", append(bearer(masterKey), userPathHeader, "/shared")...).JSON(t)
	if today, _ := jsonAt(u, "usage.today.requests").(float64); today != each*float64(len(ps)) {
		t.Errorf("GET /v1/usage for /shared at %s: %v requests today, want %d", reader.Name, jsonAt(u, "usage.today"), each*len(ps))
	}
}

// checkSharedLiveLog: a live-log client of p2 receives the events of
// requests served by p1 and p3.
func checkSharedLiveLog(t *testing.T, ps []*gatewayProcess) {
	c := openLiveStream(t, ps[1].G, "")
	if ev := c.next(t); ev.event != "connected" {
		t.Fatalf("first live event %+v", ev)
	}
	events := make(chan liveEvent, 64)
	go func() {
		defer close(events)
		for {
			var ev liveEvent
			if !readLiveEvent(c.rd, &ev) {
				return
			}
			events <- ev
		}
	}()
	sent := time.Now()
	want := map[string]string{"/live/p1": "", "/live/p3": ""}
	for path := range want {
		p := ps[0]
		if path == "/live/p3" {
			p = ps[2]
		}
		if res, err := procChat(p, path); err != nil || res.Status != 200 {
			t.Fatalf("%s: %v %d %s", path, err, res.Status, res.Body)
		}
	}
	timeout := time.After(5 * time.Second)
	for missing := len(want); missing > 0; {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the live stream of p2 ended")
			}
			for path, seen := range want {
				if seen == "" && ev.event == "audit" && strings.Contains(ev.data, `"user_path":"`+path+`"`) {
					want[path] = time.Since(sent).Round(time.Millisecond).String()
					missing--
				}
			}
		case <-timeout:
			t.Fatalf("the live log of p2 did not show the requests served elsewhere within 5 s: seen %v", want)
		}
	}
	t.Logf("live log of p2: request served by p1 seen after %s, by p3 after %s", want["/live/p1"], want["/live/p3"])
}

// readLiveEvent reads one event of a live stream into ev, like
// liveConn.next but reporting the end of the stream instead of failing.
func readLiveEvent(rd *bufio.Reader, ev *liveEvent) bool {
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return false
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.event != "" {
				return true
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
}

// keyAnswers is the status GET /v1/usage answers at p for a key.
func keyAnswers(p *gatewayProcess, secret string) int {
	res, err := send("GET", p.G.URL+"/v1/usage", "", bearer(secret)...)
	if err != nil {
		return 0
	}
	return res.Status
}

// checkSharedRevocation: a key created through p1 works at p2 and p3;
// deactivated through p1 it is refused at both within 1 s.
func checkSharedRevocation(t *testing.T, ps []*gatewayProcess) {
	k := createKey(t, ps[0].G, `{"name":"shared","user_path":"/keys/shared"}`)
	created := time.Now()
	for _, p := range ps[1:] {
		for keyAnswers(p, k.Secret) != 200 {
			if time.Since(created) > 2*time.Second {
				t.Fatalf("a key created through p1 does not authenticate at %s 2 s later (status %d)", p.Name, keyAnswers(p, k.Secret))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("a key created through p1 authenticated at p2 and p3 after %v", time.Since(created).Round(time.Millisecond))
	if res := adminCall(t, ps[0].G, "POST", "/admin/auth-keys/"+k.ID+"/deactivate", ""); res.Status != 200 {
		t.Fatalf("deactivating through p1: %d %s", res.Status, res.Body)
	}
	revoked := time.Now()
	refusedAt := map[string]time.Duration{}
	for len(refusedAt) < len(ps)-1 && time.Since(revoked) < 5*time.Second {
		for _, p := range ps[1:] {
			if _, done := refusedAt[p.Name]; !done && keyAnswers(p, k.Secret) == 401 {
				refusedAt[p.Name] = time.Since(revoked)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("the key deactivated through p1 was refused at %v after the answer", refusedAt)
	for _, p := range ps[1:] {
		d, ok := refusedAt[p.Name]
		if !ok || d > time.Second {
			t.Errorf("the key deactivated through p1 was refused at %s after %v (never within 5 s when 0), want within 1 s", p.Name, d)
		}
	}
	if p := ps[2]; keyAnswers(p, k.Secret) == 401 {
		request(t, "GET", p.G.URL+"/v1/usage", "", bearer(k.Secret)...).ExpectErr(t, 401, "authentication_error", "api_key_deactivated")
	}
}

// checkSharedRPM: total requests under path spread round robin over the
// three processes, 30 at a time, against the rule rpm=limit on path:
// exactly limit admitted.
func checkSharedRPM(t *testing.T, ps []*gatewayProcess, path string, limit, total int) {
	// The burst stays inside one minute: across a window boundary the
	// sliding estimate lets a few more in.
	if s := time.Now().Second(); s > 45 {
		wait := time.Duration(61-s) * time.Second
		t.Logf("waiting %v for the next minute", wait)
		time.Sleep(wait)
	}
	const workers = 30
	var (
		next     atomic.Int64
		mu       sync.Mutex
		statuses = map[int]int{}
		admitted = map[string]int{}
		wg       sync.WaitGroup
	)
	began := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= total {
					return
				}
				p := ps[i%len(ps)]
				res, err := procChat(p, fmt.Sprintf("%s/u%d", path, i))
				mu.Lock()
				if err != nil {
					statuses[0]++
				} else {
					statuses[res.Status]++
					if res.Status == 200 {
						admitted[p.Name]++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests across 3 processes in %v: statuses %v (0 = no answer), admitted per process %v",
		total, time.Since(began).Round(time.Millisecond), statuses, admitted)
	if statuses[200] != limit || statuses[429] != total-limit {
		t.Errorf("rpm=%d across three processes: %d admitted and %d refused of %d, want exactly %d and %d",
			limit, statuses[200], statuses[429], total, limit, total-limit)
	}
}

// checkSharedConcurrency: 60 simultaneous requests under /conc, 20 at
// each process, against concurrent=5 and a slow upstream: at most 5 at
// once at the upstream, and 5 reached; then none held.
func checkSharedConcurrency(t *testing.T, ps []*gatewayProcess, up *slowUpstream) {
	const n = 60
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		wg       sync.WaitGroup
		start    = make(chan struct{})
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := ps[i%len(ps)]
			req, _ := http.NewRequest("POST", p.G.URL+"/v1/chat/completions", strings.NewReader(slowChat("slow/slow-model", false)))
			req.Header.Set("Authorization", "Bearer "+masterKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(userPathHeader, fmt.Sprintf("/conc/u%d", i))
			<-start
			status := 0
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
				status = resp.StatusCode
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("concurrent=5, %d simultaneous requests over 3 processes: statuses %v, at most %d at once at the upstream",
		n, statuses, up.maxSeen.Load())
	if m := up.maxSeen.Load(); m > 5 {
		t.Errorf("the upstream saw %d requests at once, want at most 5", m)
	} else if m < 5 {
		t.Errorf("the upstream saw at most %d at once: the cap of 5 was never reached", m)
	}
	if statuses[200] < 5 || statuses[200]+statuses[429] != n {
		t.Errorf("statuses %v: want at least 5 answered and every other one refused with 429", statuses)
	}
	// Every slot is back: five more at once are all admitted.
	for _, p := range ps {
		if res, err := procChat(p, "/conc/after"); err != nil || res.Status != 200 {
			t.Errorf("%s after the burst: %v %d %s", p.Name, err, res.Status, res.Body)
		}
	}
}

// checkLeasesOfKilled: p3 holds all 3 slots of /kill with open streams;
// p1 is refused; after kill -9 of p3, p1 is admitted again within the
// lease time.
func checkLeasesOfKilled(t *testing.T, ps []*gatewayProcess) {
	victim, other := ps[2], ps[0]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 3; i++ {
		resp, _ := openStream(t, ctx, victim.G, "hold/slow-model", fmt.Sprintf("/kill/s%d", i))
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d at %s: %d", i, victim.Name, resp.StatusCode)
		}
	}
	if res, err := procChat(other, "/kill/other"); err != nil || res.Status != 429 {
		t.Fatalf("with 3 of 3 slots held at %s, %s answered %v %d %s, want 429", victim.Name, other.Name, err, res.Status, res.Body)
	}
	victim.kill(t)
	killed := time.Now()
	for {
		res, err := procChat(other, "/kill/other")
		if err == nil && res.Status == 200 {
			break
		}
		if time.Since(killed) > concurrencyLease+time.Second {
			t.Fatalf("%d s after kill -9 of %s its slots are still held: %s answers %v %d %s",
				int(time.Since(killed).Seconds()), victim.Name, other.Name, err, res.Status, res.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("kill -9 of %s holding 3 slots: %s admitted again after %v (lease %v)",
		victim.Name, other.Name, time.Since(killed).Round(time.Millisecond), concurrencyLease)
}
