package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// dashboardSeed is the number of audit entries the load-time test stores.
const dashboardSeed = 10000

// seedMany stores n completed requests spread over the last 90 days (one
// in ten with an error status, sessions of five requests) in the running
// gateway's store.
func seedMany(t *testing.T, n int) {
	t.Helper()
	st := activeApp(t).Store()
	b := boltstore.NewAudit(st)
	now := time.Now().UTC()
	step := 90 * 24 * time.Hour / time.Duration(n)
	body := json.RawMessage(`{"model":"mock-model","messages":[{"role":"user","content":"seeded"}]}`)
	for i := 0; i < n; i++ {
		at := now.Add(-time.Duration(n-i) * step)
		status := 200
		if i%10 == 9 {
			status = 502
		}
		u := catalog.Usage{InputTokens: 100, OutputTokens: 40, TotalTokens: 140}
		userPath := fmt.Sprintf("/team/%d", i%7)
		session := fmt.Sprintf("sess-%d", i/5)
		e := &audit.Entry{ID: audit.NewID(at), RequestID: fmt.Sprintf("req-%d", i), Timestamp: at, Method: "POST", Path: "/v1/chat/completions",
			StatusCode: status, DurationNs: int64(time.Duration(20+i%50) * time.Millisecond), AuthMethod: "master_key", UserPath: userPath,
			SessionID: session, Provider: "mock", ProviderName: "demo", RequestedModel: "mock-model", ResolvedModel: "mock-model",
			Usage: audit.UsageOf(u), Data: &audit.Data{RequestBody: body}}
		c := 0.001
		r := &audit.UsageRecord{ID: audit.NewID(at), RequestID: e.ID, Timestamp: at, UserPath: userPath, SessionID: session,
			ProviderName: "demo", ProviderType: "mock", Model: "mock-model", Endpoint: e.Path, Usage: u, TotalCost: &c}
		for !b.AppendEntry(e) || !b.AppendUsage(r) {
			if err := st.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if i%1000 == 999 {
			if err := st.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardLoadTime: with 10,000 audit entries stored, every page has
// drawn its data within 1 s of the navigation starting (the figure the page
// records when it is ready, performance.now()). With the race detector the
// times are only logged.
func TestDashboardLoadTime(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock("admin {\n live_logs_enabled true\n}\n"))
	seedMany(t, dashboardSeed)
	if n := auditTotal(t, g); n < dashboardSeed {
		t.Fatalf("%d entries stored", n)
	}
	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	b.do(t, "sign in", chromedp.Navigate(g.URL+"/admin/dashboard"),
		chromedp.SetValue(chromedp.ID("login-key"), masterKey), chromedp.Click(chromedp.CSS(`#login-form button[type="submit"]`)))
	b.waitFor(t, "overview", `document.body.dataset.ready === "overview"`, 15*time.Second)
	for _, p := range dashboardPages {
		// Twice: the first load of a page also compiles its script.
		var ms int
		for i := 0; i < 2; i++ {
			b.open(t, p.path, p.name)
			ms = eval[int](t, b, `Number(document.body.dataset.readyMs)`)
		}
		t.Logf("%s ready after %d ms", p.path, ms)
		if ms > 1000 && !raceDetector {
			t.Errorf("%s took %d ms with %d entries stored", p.path, ms, dashboardSeed)
		}
	}
	b.open(t, "/admin/dashboard/audit", "audit")
	if got := eval[string](t, b, `document.getElementById("audit-total").dataset.total`); got != fmt.Sprint(auditTotal(t, g)) {
		t.Errorf("audit total shown %s", got)
	}
	b.checkClean(t)
}
