package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// openTest opens a client on the test server under prefix.
func openTest(t testing.TB, url, prefix string) *Client {
	t.Helper()
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destruct() })
	return c
}

// budgetService is reserveService with the default reservation lease.
func budgetService(t *testing.T, c *Client, now time.Time) *budgets.Service {
	t.Helper()
	return reserveService(t, c, now, 0)
}

func TestBudgetSpendSharedThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	p1 := budgetService(t, openTest(t, url, prefix), now)
	p2 := budgetService(t, openTest(t, url, prefix), now)
	p1.Charge("/team/app", 0.6, now)
	if ok, _, _ := p2.Check("/team", now); !ok {
		t.Fatal("refused at $0.60 of $1")
	}
	p2.Charge("/team/other", 0.4, now)
	for i, s := range []*budgets.Service{p1, p2} {
		ok, wait, which := s.Check("/team/app", now)
		if ok || which == nil || which.UserPath != "/team" || wait <= 0 {
			t.Fatalf("process %d: ok=%v wait=%v which=%v after $1 of $1 charged through both", i+1, ok, wait, which)
		}
		if es := s.List(); len(es) != 2 || es[1].UserPath != "/team" || es[1].Spent != 1 {
			t.Fatalf("process %d lists %+v", i+1, es)
		}
	}
	// Template children are shared too.
	p1.Charge("/customers/alice/app", 0.9, now)
	p2.Charge("/customers/alice", 0.2, now)
	if ok, _, _ := p1.Check("/customers/alice", now); ok {
		t.Fatal("alice admitted past her $1")
	}
	if ok, _, _ := p1.Check("/customers/bob", now); !ok {
		t.Fatal("bob refused for alice's spend")
	}
	kids, err := p2.Children(budgets.Key{UserPath: "/customers", Period: budgets.Hourly})
	if err != nil || len(kids) != 1 || kids[0].EffectiveSubject != "/customers/alice" || kids[0].Spent < 1.0999 {
		t.Fatalf("children at process 2: %+v, %v", kids, err)
	}
	// A reset through one process clears the spend at the other.
	if _, err := p2.ResetOne(budgets.Key{UserPath: "/team", Period: budgets.Daily}); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := p1.Check("/team", now); !ok {
		t.Fatal("refused at process 1 after process 2 reset the budget")
	}
}

func TestBudgetSpendSeedOnce(t *testing.T) {
	url, prefix := redistest.New(t)
	st := NewBudgets(openTest(t, url, prefix))
	ctx := context.Background()
	start := time.Now().UTC().Truncate(24 * time.Hour)
	w := budgets.SpendWindow{Budget: budgets.Key{UserPath: "/c", Period: budgets.Daily}, PerChild: true, Start: start, End: start.Add(24 * time.Hour)}
	if got, err := st.Windows(ctx, []budgets.SpendWindow{w}); err != nil || len(got) != 1 || got[0] != nil {
		t.Fatalf("fresh window: %v, %v", got, err)
	}
	got, err := st.Seed(ctx, w, map[string]float64{"alice": 0.25, "bob": 1e-7}, "")
	if err != nil || got["alice"] != 0.25 || got["bob"] != 1e-7 || len(got) != 2 {
		t.Fatalf("seed: %v, %v", got, err)
	}
	// A second seed (another process starting) keeps the first.
	got, err = st.Seed(ctx, w, map[string]float64{"alice": 9}, "")
	if err != nil || got["alice"] != 0.25 {
		t.Fatalf("second seed: %v, %v", got, err)
	}
	// A server that never held the windows answers ErrSpendLost until
	// told they are restored.
	if _, err := st.Add(ctx, []budgets.SpendCell{{Window: w, Child: "alice"}}, 0.5); !errors.Is(err, budgets.ErrSpendLost) {
		t.Fatalf("add before Restored: %v", err)
	}
	if err := st.Restored(ctx); err != nil {
		t.Fatal(err)
	}
	totals, err := st.Add(ctx, []budgets.SpendCell{{Window: w, Child: "alice"}, {Window: w, Child: "carol"}}, 0.5)
	if err != nil || totals[0] != 0.75 || totals[1] != 0.5 {
		t.Fatalf("add: %v, %v", totals, err)
	}
	if err := st.Clear(ctx, w); err != nil {
		t.Fatal(err)
	}
	held, err := st.Windows(ctx, []budgets.SpendWindow{w})
	if err != nil || len(held) != 1 || held[0] == nil || len(held[0]) != 0 {
		t.Fatalf("after clear: %v, %v", held, err)
	}
	// Seeding a cleared window does not bring spend back.
	if got, _ := st.Seed(ctx, w, map[string]float64{"alice": 3}, ""); len(got) != 0 {
		t.Fatalf("seed after clear: %v", got)
	}
	vals, err := st.Spend(ctx, []budgets.SpendCell{{Window: w, Child: "alice"}, {Window: w, Child: ""}})
	if err != nil || len(vals) != 2 || vals[0] != 0 || vals[1] != 0 {
		t.Fatalf("spend: %v, %v", vals, err)
	}
	ttl := st.c.R.PTTL(ctx, st.key(w)).Val()
	if want := time.Until(w.End.Add(spendKeep)); ttl <= 0 || ttl > want+time.Second {
		t.Fatalf("ttl %v, want about %v", ttl, want)
	}
}

func TestBudgetSpendFallsBackWhenRedisIsDown(t *testing.T) {
	// Nothing listens on this port: every call fails at once.
	c, err := Open(context.Background(), Options{URL: "redis://127.0.0.1:1/0", Prefix: "mgtest:down:"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	now := time.Now().UTC()
	s := budgetService(t, c, now)
	s.Charge("/team", 0.7, now)
	if ok, _, _ := s.Check("/team", now); !ok {
		t.Fatal("refused at $0.70 of $1 with Redis down")
	}
	s.Charge("/team", 0.4, now)
	if ok, _, _ := s.Check("/team", now); ok {
		t.Fatal("admitted past $1 counted in memory with Redis down")
	}
	if s.Tracker().SpendFallbacks() == 0 {
		t.Fatal("no fallback counted")
	}
}

// BenchmarkBudgetCheckRedis is an admitted request under a budget and a
// template child, its spend read from Redis in one round trip.
func BenchmarkBudgetCheckRedis(b *testing.B) {
	url, prefix := redistest.New(b)
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Destruct()
	now := time.Now().UTC()
	s, err := budgets.New(budgets.Options{Spend: NewBudgets(c), Now: func() time.Time { return now }, QuotaTemplates: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []budgets.Key{{UserPath: "/", Period: budgets.Daily}, {UserPath: "/customers", Period: budgets.Monthly}} {
		if _, err := s.Put(k, 1e9, k.UserPath == "/customers"); err != nil {
			b.Fatal(err)
		}
	}
	s.Charge("/customers/alice/app", 0.01, now)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, _, _ := s.Check("/customers/alice/app", now); !ok {
			b.Fatal("refused")
		}
	}
	if n := s.Tracker().SpendFallbacks(); n != 0 {
		b.Fatalf("%d checks fell back to memory", n)
	}
}

// BenchmarkBudgetChargeRedis charges a completed request to a budget and
// a template child in one round trip.
func BenchmarkBudgetChargeRedis(b *testing.B) {
	url, prefix := redistest.New(b)
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Destruct()
	now := time.Now().UTC()
	s, err := budgets.New(budgets.Options{Spend: NewBudgets(c), Now: func() time.Time { return now }, QuotaTemplates: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []budgets.Key{{UserPath: "/", Period: budgets.Daily}, {UserPath: "/customers", Period: budgets.Monthly}} {
		if _, err := s.Put(k, 1e9, k.UserPath == "/customers"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Charge("/customers/alice/app", 0.001, now)
	}
	if n := s.Tracker().SpendFallbacks(); n != 0 {
		b.Fatalf("%d charges fell back to memory", n)
	}
}

// spendSource is a budgets.SpendSource with fixed sums by prefix.
type spendSource map[string]float64

func (s spendSource) SpendSince(prefix string, perChild bool, _ time.Time) (map[string]float64, error) {
	return map[string]float64{prefix: s[prefix]}, nil
}

// TestBudgetSpendRebuiltAfterRedisLosesItsData: when the Redis server
// restarts without its data (every key of the gateway gone), a spent
// budget stays spent: the next check finds the windows lost, reseeds them
// from the usage records and refuses, at every process.
func TestBudgetSpendRebuiltAfterRedisLosesItsData(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	src := spendSource{"/team": 1}
	open := func() *budgets.Service {
		s, err := budgets.New(budgets.Options{Spend: NewBudgets(openTest(t, url, prefix)), Source: src,
			Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(budgets.Key{UserPath: "/team", Period: budgets.Daily}, 1, false); err != nil {
			t.Fatal(err)
		}
		return s
	}
	p1, p2 := open(), open()
	if ok, _, _ := p1.Check("/team/app", now); ok {
		t.Fatal("admitted with $1 of $1 spent")
	}
	// The server restarts empty.
	c := openTest(t, url, prefix)
	ctx := context.Background()
	keys, err := c.R.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if err := c.R.Del(ctx, keys...).Err(); err != nil {
		t.Fatal(err)
	}
	for i, p := range []*budgets.Service{p2, p1} {
		p.Charge("/team/app", 0.1, now)
		if ok, _, _ := p.Check("/team/app", now); ok {
			t.Fatalf("process %d admitted after Redis lost the spend", i+1)
		}
	}
	if es := p1.List(); len(es) != 1 || es[0].Spent < 1.0999 || es[0].Spent > 1.2001 {
		t.Fatalf("spend after the loss: %+v", es)
	}
}

// TestBudgetSpendNanosAndHandOver: spend is held in whole nanos (a
// thousand charges of $0.000001 sum exactly), the mark a window was
// seeded with is read back, HandOver adds only under that mark and
// answers ErrSpendLost with the epoch missing, which Lost reports.
func TestBudgetSpendNanosAndHandOver(t *testing.T) {
	url, prefix := redistest.New(t)
	st := NewBudgets(openTest(t, url, prefix))
	ctx := context.Background()
	start := time.Now().UTC().Truncate(24 * time.Hour)
	w := budgets.SpendWindow{Budget: budgets.Key{UserPath: "/n", Period: budgets.Daily}, Start: start, End: start.Add(24 * time.Hour)}
	if lost, err := st.Lost(ctx); err != nil || !lost {
		t.Fatalf("a new server: lost %v, %v", lost, err)
	}
	if _, err := st.HandOver(ctx, w, map[string]catalog.Nanos{"": 5}, ""); !errors.Is(err, budgets.ErrSpendLost) {
		t.Fatalf("hand-over with the epoch missing: %v", err)
	}
	mark := budgets.SnapshotMark("100:100:")
	if _, err := st.Seed(ctx, w, map[string]float64{"": 0.015}, mark); err != nil {
		t.Fatal(err)
	}
	if err := st.Restored(ctx); err != nil {
		t.Fatal(err)
	}
	if lost, err := st.Lost(ctx); err != nil || lost {
		t.Fatalf("restored: lost %v, %v", lost, err)
	}
	if got, err := st.Mark(ctx, w); err != nil || got != mark {
		t.Fatalf("mark %q, %v; want %q", got, err, mark)
	}
	if ok, err := st.HandOver(ctx, w, map[string]catalog.Nanos{"": 5_000_000}, ""); err != nil || ok {
		t.Fatalf("hand-over under another mark: %v, %v", ok, err)
	}
	if ok, err := st.HandOver(ctx, w, map[string]catalog.Nanos{"": 5_000_000}, mark); err != nil || !ok {
		t.Fatalf("hand-over under the mark: %v, %v", ok, err)
	}
	for range 1000 {
		if _, err := st.Add(ctx, []budgets.SpendCell{{Window: w}}, 0.000001); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := st.c.R.HGet(ctx, st.key(w), "").Result()
	if err != nil || raw != "21000000" {
		t.Fatalf("stored %q, %v; want 21000000 nanos", raw, err)
	}
	if err := st.Clear(ctx, w); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Mark(ctx, w); err != nil || got != "" {
		t.Fatalf("mark after clear %q, %v", got, err)
	}
}
