package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelgate/modelgate/bench/internal/stats"
)

func TestParseDropped(t *testing.T) {
	text := `# HELP modelgate_audit_dropped_total Audit entries and usage records dropped because the store's write queue was full.
# TYPE modelgate_audit_dropped_total counter
modelgate_audit_dropped_total{kind="entry",reason="queue_full"} 3
modelgate_audit_dropped_total{kind="usage",reason="queue_full"} 1.2e+06
modelgate_audit_dropped_total{kind="usage",reason="key_too_large"} 2
modelgate_audit_dropped_totalish{kind="entry"} 99
caddy_admin_http_requests_total{code="200",handler="metrics",method="GET",path="/metrics"} 1
`
	got, err := parseDropped([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got["entry"] != 3 || got["usage"] != 1200002 || len(got) != 2 {
		t.Errorf("got %v", got)
	}
	for name, bad := range map[string]string{
		"missing usage": `modelgate_audit_dropped_total{kind="entry"} 0`,
		"no value":      "modelgate_audit_dropped_total{kind=\"entry\"}\nmodelgate_audit_dropped_total{kind=\"usage\"} 0",
		"negative":      "modelgate_audit_dropped_total{kind=\"entry\"} -1\nmodelgate_audit_dropped_total{kind=\"usage\"} 0",
		"absent":        "go_goroutines 12",
	} {
		if _, err := parseDropped([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFindRootBudget(t *testing.T) {
	list := `{"budgets":[{"user_path":"/team","period":"daily","amount":5},
		{"user_path":"/","period":"daily","amount":1000000000,"spent":0.25,"source":"config"}],"server_time":"2026-11-23T05:00:00Z"}`
	got, err := findRootBudget([]byte(list))
	if err != nil || got != "daily budget on / of 1e+09 (source config, spent 0.25)" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := findRootBudget([]byte(`{"budgets":[{"user_path":"/team","period":"daily","amount":5}]}`)); err == nil {
		t.Error("a list without / accepted")
	}
	if _, err := findRootBudget([]byte(`{"error":{"message":"not found"}}`)); err == nil {
		t.Error("an answer without budgets accepted")
	}
}

func TestSettleRecords(t *testing.T) {
	ctx := context.Background()
	// The store catches up over reads: stops as soon as stored + dropped reach want.
	seq := []recordCounts{{audit: 5, usage: 5}, {audit: 8, usage: 7}, {audit: 9, usage: 9, usageDropped: 1}, {audit: 50, usage: 50}}
	n := 0
	read := func(context.Context) (recordCounts, error) {
		rc := seq[min(n, len(seq)-1)]
		n++
		return rc, nil
	}
	got, err := settleRecords(ctx, read, recordCounts{audit: 9, usage: 10}, time.Minute, time.Minute)
	if err != nil || got != seq[2] || n != 3 {
		t.Errorf("got %+v after %d reads, %v", got, n, err)
	}
	// Without a target it stops once the counts hold still.
	n = 0
	start := time.Now()
	still := func(context.Context) (recordCounts, error) { n++; return recordCounts{audit: 2, usage: 2}, nil }
	if got, err := settleRecords(ctx, still, recordCounts{}, 300*time.Millisecond, time.Minute); err != nil || got.audit != 2 {
		t.Errorf("stable: %+v %v", got, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second || n < 2 {
		t.Errorf("stable: returned after %v and %d reads", d, n)
	}
	boom := errors.New("boom")
	if _, err := settleRecords(ctx, func(context.Context) (recordCounts, error) { return recordCounts{}, boom }, recordCounts{}, time.Second, time.Second); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}

func TestSentTo(t *testing.T) {
	mk := func(target string, sent ...int) *Cell {
		c := &Cell{cellKey: cellKey{Workload: "chat", Target: target}}
		for _, s := range sent {
			c.Rounds = append(c.Rounds, &stats.Result{Sent: s, Answered: s - 1})
		}
		return c
	}
	cells := []*Cell{mk(targetModelgate, 10, 20), mk(targetCaddy, 1000), mk(targetModelgate, 5), mk(targetBudget, 7)}
	if r := sentTo(cells, targetModelgate); r.Sent != 35 || r.Answered != 32 || r.Target != targetModelgate {
		t.Errorf("modelgate: %+v", r)
	}
	if r := sentTo(cells, targetBudget); r.Sent != 7 || r.Answered != 6 {
		t.Errorf("budget: %+v", r)
	}
}
