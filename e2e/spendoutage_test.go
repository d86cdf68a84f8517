package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// spendAndRecords reads, at p, the spend of the daily budget on
// userPath (GET /admin/budgets) and the usage records' cost and count
// for userPath (GET /admin/usage/summary), in nanos.
func spendAndRecords(t *testing.T, p *gatewayProcess, userPath string) (spent, records catalog.Nanos, n float64) {
	t.Helper()
	spent = catalog.NanosOf(budgetSpent(t, p.G, userPath, "daily"))
	res := adminCall(t, p.G, "GET", "/admin/usage/summary?days=1&user_path="+userPath, "")
	if res.Status != 200 {
		t.Fatalf("%s usage summary: %d %s", p.Name, res.Status, res.Body)
	}
	m := res.JSON(t)
	c, _ := m["total_cost"].(float64)
	n, _ = m["total_requests"].(float64)
	return spent, catalog.NanosOf(c), n
}

// checkSpendAfterEmptyRedis: requests are served at every process while
// Redis is down (their charges kept by each process), Redis restarts
// empty, and with no further request the budget's spend at every
// process becomes exactly the sum of the usage records: the processes
// notice the empty Redis themselves, one rebuilds the spend from the
// records, and the charges kept during the outage that the records
// already count are not added again. The same outage a second time
// counts nothing twice either.
func checkSpendAfterEmptyRedis(t *testing.T, ps []*gatewayProcess, rd *redistest.Server) {
	const path = "/outage/spend"
	price := func(in, out float64) {
		t.Helper()
		body := fmt.Sprintf(`{"provider":"demo","model":"mock-chat","pricing":{"input_per_mtok":%g,"output_per_mtok":%g}}`, in, out)
		if res := adminCall(t, ps[0].G, "PUT", "/admin/pricing", body); res.Status != 200 {
			t.Fatalf("price override: %d %s", res.Status, res.Body)
		}
	}
	price(3.3, 7.7) // costs that are not round in binary floating point
	if res := adminCall(t, ps[0].G, "PUT", "/admin/budgets/%2Foutage%2Fspend/daily", `{"amount":1000}`); res.Status != 200 {
		t.Fatalf("creating the budget: %d %s", res.Status, res.Body)
	}
	time.Sleep(1500 * time.Millisecond) // p2 has the budget
	served := 0
	serve := func(k int) {
		for _, p := range ps {
			for range k {
				if !admitted(t, p, path) {
					t.Fatalf("%s refused a request under a $1000 budget", p.Name)
				}
				served++
			}
		}
	}
	agree := func(what string) {
		t.Helper()
		var last string
		defer func() {
			if t.Failed() {
				t.Log("last read: " + last)
			}
		}()
		d := poll(t, 10*time.Second, what+": the budget's spend equals the usage records' sum at every process", func() bool {
			for _, p := range ps {
				spent, recs, n := spendAndRecords(t, p, path)
				last = fmt.Sprintf("%s: spent %d nanos, records %d nanos over %v of %d requests", p.Name, spent, recs, n, served)
				if n != float64(served) || spent != recs {
					return false
				}
			}
			return true
		})
		t.Logf("%s: the spend equalled the records' sum after %v (%s)", what, d.Round(time.Millisecond), last)
		// And stays so: nothing owed is handed over on top later.
		time.Sleep(2500 * time.Millisecond)
		for _, p := range ps {
			if spent, recs, n := spendAndRecords(t, p, path); spent != recs || n != float64(served) {
				t.Fatalf("%s, a moment later at %s: spent %d nanos, records %d nanos (%v requests, %d served)", what, p.Name, spent, recs, n, served)
			}
		}
	}
	serve(3)
	agree("with Redis up")
	for outage := 1; outage <= 2; outage++ {
		rd.Stop()
		time.Sleep(1500 * time.Millisecond) // the processes notice Redis is gone
		serve(4)
		before := rebuilds(t, ps)
		rd.Start() // empty: no persistence
		// Found by the processes' probes, with no request nor admin read.
		d := poll(t, 5*time.Second, "a process rebuilding the spend from the usage records", func() bool { return rebuilds(t, ps) > before })
		t.Logf("outage %d: Redis was found empty and rebuilt %v after it restarted", outage, d.Round(time.Millisecond))
		agree(fmt.Sprintf("after Redis restarted empty (outage %d)", outage))
		// Requests served afterwards add their own cost, and nothing
		// owed from the outage is added on top.
		serve(1)
		agree(fmt.Sprintf("after a request at each process following outage %d", outage))
	}
	// A recalculation at new prices moves the spend at every process to
	// the repriced records' sum.
	price(1.1, 2.9)
	_, before, _ := spendAndRecords(t, ps[0], path)
	today := time.Now().UTC()
	body := fmt.Sprintf(`{"start_date":%q,"end_date":%q}`, today.AddDate(0, 0, -1).Format(time.DateOnly), today.Format(time.DateOnly))
	res := adminCall(t, ps[0].G, "POST", "/admin/usage/recalculate", body)
	if res.Status != 202 {
		t.Fatalf("recalculate: %d %s", res.Status, res.Body)
	}
	id, _ := res.JSON(t)["id"].(string)
	poll(t, 20*time.Second, "the recalculation finishes", func() bool {
		r := adminCall(t, ps[0].G, "GET", "/admin/usage/recalculate/"+id, "")
		if r.Status != 200 {
			t.Fatalf("status: %d %s", r.Status, r.Body)
		}
		job := r.JSON(t)
		if job["status"] == "failed" {
			t.Fatalf("recalculation failed: %s", r.Body)
		}
		return job["status"] == "done"
	})
	if _, after, _ := spendAndRecords(t, ps[0], path); after == before {
		t.Fatalf("the recalculation left the records' sum at %d nanos", after)
	}
	agree("after a recalculation at new prices")
}

// rebuilds counts the times the processes logged rebuilding the spend
// from the usage records after finding Redis empty.
func rebuilds(t *testing.T, ps []*gatewayProcess) int {
	t.Helper()
	n := 0
	for _, p := range ps {
		b, err := os.ReadFile(p.LogPath)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "rebuilding them from the usage records")
	}
	return n
}
