package e2e

// A long agent session on the entry page: 30 turns whose request bodies
// grow to about 480 KB each. The conversation view reads the session
// about 1 MB at a time, the latest turns first, and earlier turns a page
// at a time on request.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDashboardConversationPages(t *testing.T) {
	skipWithoutChromium(t)
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	const turns = 30
	var messages []string
	for i := 1; i <= turns; i++ {
		// Each turn adds a 16 KB user message to the history it sends.
		messages = append(messages, fmt.Sprintf(`{"role":"user","content":"turn %d %s"}`, i, strings.Repeat("x", 16<<10)))
		body := `{"model":"mock-chat","messages":[` + strings.Join(messages, ",") + `]}`
		if res := request(t, "POST", g.URL+"/v1/chat/completions", body, append(bearer(masterKey), "X-Session-Id", "agent-long")...); res.Status != 200 {
			t.Fatalf("turn %d: %d %s", i, res.Status, res.Body)
		}
		messages = append(messages, `{"role":"assistant","content":"ok"}`)
	}
	waitAudited(t, g, turns)
	var page struct {
		Entries []struct {
			ID string `json:"id"`
		}
	}
	adminJSON(t, g, "/admin/audit/log?session_id=agent-long&limit=1", &page)
	last := page.Entries[0].ID

	b := newBrowser(t, g.URL)
	b.viewport(t, 1280, 800, false)
	signIn(t, b, g)
	b.open(t, "/admin/dashboard/audit?id="+last, "audit")
	b.waitFor(t, "the latest turns", `document.querySelector("#conversation .chat")`, 15*time.Second)
	first := eval[int](t, b, `Number(document.querySelector("#conversation .chat").dataset.turns)`)
	if first < 1 || first >= turns {
		t.Fatalf("the first page shows %d turns of %d", first, turns)
	}
	for i := 0; eval[bool](t, b, `!!document.getElementById("earlier-turns")`); i++ {
		if i > turns {
			t.Fatal("the earlier turns never end")
		}
		n := eval[int](t, b, `Number(document.querySelector("#conversation .chat").dataset.turns)`)
		clickJS(t, b, "#earlier-turns")
		b.waitFor(t, "earlier turns", fmt.Sprintf(`Number((document.querySelector("#conversation .chat") || {dataset: {}}).dataset.turns) > %d`, n), 15*time.Second)
	}
	if n := eval[int](t, b, `Number(document.querySelector("#conversation .chat").dataset.turns)`); n != turns {
		t.Errorf("%d turns shown after reading every page, want %d", n, turns)
	}
	if !eval[bool](t, b, `document.querySelector("#conversation .chat").textContent.includes("turn 1 x")`) {
		t.Error("the first turn's message is not shown")
	}
	// Each read of the session brought about 1 MB at most.
	var sizes []int
	if err := json.Unmarshal([]byte(eval[string](t, b, `JSON.stringify(performance.getEntriesByType("resource").filter(e => e.name.includes("/admin/audit/conversation")).map(e => e.decodedBodySize))`)), &sizes); err != nil {
		t.Fatal(err)
	}
	if len(sizes) < 2 {
		t.Fatalf("%d reads of the session", len(sizes))
	}
	for _, s := range sizes {
		if s > 1100<<10 {
			t.Errorf("a read of the session brought %d bytes", s)
		}
	}
	t.Logf("%d turns read in %d pages of %v bytes", turns, len(sizes), sizes)
	b.checkClean(t)
}
