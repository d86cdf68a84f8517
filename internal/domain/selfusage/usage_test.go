package selfusage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// TestUsageTotals: GET /v1/usage carries the caller's usage today and over
// the last 30 days, the paths below it included, from the recorded usage.
func TestUsageTotals(t *testing.T) {
	st, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "u.db"), NoSync: true, FlushInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b := boltstore.NewAudit(st)
	now := time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)
	ids := audit.NewIDGenerator()
	for _, r := range []struct {
		ago  time.Duration
		path string
		cost float64
	}{
		{90 * time.Minute, "/team/a", 0.5},
		{150 * time.Minute, "/team/a/bob", 0.25},
		{10 * 24 * time.Hour, "/team/a", 1},
		{40 * 24 * time.Hour, "/team/a", 2},
		{time.Minute, "/team/b", 4},
	} {
		at := now.Add(-r.ago)
		c := r.cost
		if !b.AppendUsage(&audit.UsageRecord{ID: ids.New(at), Timestamp: at, UserPath: r.path, ProviderName: "p", Model: "m",
			Usage: catalog.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, TotalCost: &c}) {
			t.Fatal("rejected")
		}
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return now }
	h := &Handler{Now: clock, Usage: Totals{Source: audit.NewUsageQueries(b, clock), Now: clock}}
	m := get(t, h, "/team/a")
	u, ok := m["usage"].(map[string]any)
	if !ok {
		t.Fatalf("usage %v", m["usage"])
	}
	today, month := u["today"].(map[string]any), u["last_30_days"].(map[string]any)
	if today["requests"] != 2.0 || today["cost"] != 0.75 || today["total_tokens"] != 10.0 || today["since"] != "2026-05-04T00:00:00Z" {
		t.Fatalf("today %v", today)
	}
	if month["requests"] != 3.0 || month["cost"] != 1.75 || month["input_tokens"] != 9.0 || month["since"] != "2026-04-05T00:00:00Z" {
		t.Fatalf("last 30 days %v", month)
	}
	if u := get(t, h, "/team/c")["usage"].(map[string]any); u["today"].(map[string]any)["requests"] != 0.0 {
		t.Fatalf("a path without usage %v", u)
	}
}

type failingTotals struct{}

func (failingTotals) Totals(string, time.Time) (audit.UsageAggregate, error) {
	return audit.UsageAggregate{}, errors.New("disk on fire")
}

func TestUsageUnreadable(t *testing.T) {
	var got error
	h := &Handler{Usage: Totals{Source: failingTotals{}, OnError: func(err error) { got = err }}}
	if m := get(t, h, "/x"); m["usage"] != nil || got == nil {
		t.Fatalf("usage %v, error %v", m["usage"], got)
	}
	// Usage tracking off: zeroed totals, not null.
	u, ok := get(t, &Handler{Usage: Totals{}}, "/x")["usage"].(map[string]any)
	if !ok {
		t.Fatalf("untracked usage %v", u)
	}
	for _, period := range []string{"today", "last_30_days"} {
		p, _ := u[period].(map[string]any)
		if p == nil || p["requests"] != 0.0 || p["total_tokens"] != 0.0 || p["cost"] != 0.0 || p["since"] == nil {
			t.Fatalf("untracked usage, %s: %v", period, p)
		}
	}
}

// noisyTotals sums to a cost with float noise (0.35 + 0.7).
type noisyTotals struct{ a, b float64 }

func (n noisyTotals) Totals(string, time.Time) (audit.UsageAggregate, error) {
	return audit.UsageAggregate{Requests: 2, Cost: catalog.NanosOf(n.a + n.b)}, nil
}

// TestUsageCostRounded: the caller's cost is shown rounded to a billionth
// of a dollar, as in every admin view.
func TestUsageCostRounded(t *testing.T) {
	src := noisyTotals{0.35, 0.7}
	if src.a+src.b == 1.05 {
		t.Fatal("the test needs a sum with float noise")
	}
	u := get(t, &Handler{Usage: Totals{Source: src}}, "/x")["usage"].(map[string]any)
	for _, period := range []string{"today", "last_30_days"} {
		if p := u[period].(map[string]any); p["cost"] != 1.05 {
			t.Errorf("%s cost %v, want 1.05", period, p["cost"])
		}
	}
}
