package storetest

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// RuleStore checks a limits.RuleStore: rules come back field for field
// (their JSON form), a put and a delete in one replace, a replace in
// place, a delete of a missing rule, keys normalized (a custom period and
// a named one of the same length stay apart).
func RuleStore(t *testing.T, rs limits.RuleStore) {
	t.Helper()
	if rules, skipped, err := rs.LoadRules(); err != nil || len(rules) != 0 || len(skipped) != 0 {
		t.Fatalf("empty store: %v %v %v", rules, skipped, err)
	}
	hour := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 10, MaxTokens: 99, Source: limits.SourceManual}
	custom := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodCustom, PeriodSeconds: 3600, MaxRequests: 2, Source: limits.SourceManual}
	model := limits.Rule{Scope: limits.ScopeModel, Subject: "gpt-4o", Period: limits.PeriodConcurrent, MaxRequests: 3, Source: limits.SourceManual}
	tmpl := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/customers", PeriodSeconds: 30, MaxRequests: 1, PerChild: true, Source: limits.SourceManual}
	for _, r := range []limits.Rule{hour, custom, model, tmpl} {
		if err := rs.ReplaceRule(&r, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Rename model's rule to another subject, and change hour in place.
	moved := model
	moved.Subject = "gpt-4o-mini"
	mk := model.Key()
	if err := rs.ReplaceRule(&moved, &mk); err != nil {
		t.Fatal(err)
	}
	hour.MaxRequests = 11
	hk := hour.Key()
	if err := rs.ReplaceRule(&hour, &hk); err != nil {
		t.Fatal(err)
	}
	if err := rs.ReplaceRule(nil, &limits.Key{Scope: limits.ScopeProvider, Subject: "none", Period: limits.PeriodDay}); err != nil {
		t.Fatal("deleting a missing rule:", err)
	}
	rules, skipped, err := rs.LoadRules()
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	got := map[limits.Key]limits.Rule{}
	for _, r := range rules {
		got[r.Key()] = r
	}
	if len(rules) != 4 || got[hour.Key()].MaxRequests != 11 || got[custom.Key()].MaxRequests != 2 ||
		got[moved.Key()].MaxRequests != 3 {
		t.Fatalf("rules %+v", rules)
	}
	if _, old := got[model.Key()]; old {
		t.Fatal("the renamed rule is still stored under its old key")
	}
	for _, want := range []limits.Rule{hour, moved} {
		if r := got[want.Key()]; !reflect.DeepEqual(r, want) {
			t.Fatalf("loaded %+v, want %+v", r, want)
		}
	}
	ck := custom.Key()
	if err := rs.ReplaceRule(nil, &ck); err != nil {
		t.Fatal(err)
	}
	if rules, _, _ := rs.LoadRules(); len(rules) != 3 {
		t.Fatalf("after delete: %+v", rules)
	}
	// A put over a stored rule with a delete of another, in one replace.
	tk := tmpl.Key()
	if err := rs.ReplaceRule(&hour, &tk); err != nil {
		t.Fatal(err)
	}
	if rules, _, _ := rs.LoadRules(); len(rules) != 2 {
		t.Fatalf("after a put over a stored rule: %+v", rules)
	}
}

// RuleStoreSkipsUnreadable checks that a limits.RuleStore skips a record
// it cannot read, with one error naming it, and still loads the others.
// damage stores such a record beside the store's own and returns the text
// the error must contain to name it.
func RuleStoreSkipsUnreadable(t *testing.T, rs limits.RuleStore, damage func() string) {
	t.Helper()
	good := limits.Rule{Scope: limits.ScopeModel, Subject: "gpt", PeriodSeconds: 30, MaxRequests: 1, Source: limits.SourceManual}
	if err := rs.ReplaceRule(&good, nil); err != nil {
		t.Fatal(err)
	}
	name := damage()
	rules, skipped, err := rs.LoadRules()
	if err != nil || !reflect.DeepEqual(rules, []limits.Rule{good}) {
		t.Fatalf("rules %+v, %v; want only %+v", rules, err, good)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), name) {
		t.Fatalf("skipped %v, want one naming %s", skipped, name)
	}
}

// CounterStore checks a limits.CounterStore: queued snapshots and deletes
// land by Flush, a marker and the floor only rise, MarkReset deletes the
// snapshots of its rules and MarkResetAll every snapshot, DeleteCounters
// removes what it names.
func CounterStore(t *testing.T, cs limits.CounterStore) {
	t.Helper()
	if sc, err := cs.LoadCounters(); err != nil || len(sc.Records) != 0 || len(sc.Markers) != 0 || sc.Floor != 0 {
		t.Fatalf("empty store: %+v %v", sc, err)
	}
	team := limits.Key{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour}
	tmpl := limits.Key{Scope: limits.ScopeUserPath, Subject: "/c", PeriodSeconds: 60}
	recs := []limits.CounterRecord{
		{CounterID: limits.CounterID{Rule: team}, Snapshot: limits.Snapshot{Gen: 4, Window: 7, Requests: 1, PrevRequests: 2, Tokens: 3, PrevTokens: 4}},
		{CounterID: limits.CounterID{Rule: tmpl, Child: "alice"}, Snapshot: limits.Snapshot{Gen: 5, Window: 8, Requests: 9}},
		{CounterID: limits.CounterID{Rule: tmpl, Child: "bob"}, Snapshot: limits.Snapshot{Gen: 5, Window: 8, Requests: 1}},
	}
	for _, r := range recs {
		if !cs.QueueSnapshot(r) {
			t.Fatal("snapshot refused")
		}
	}
	if !cs.QueueDelete(recs[2].CounterID) {
		t.Fatal("delete refused")
	}
	if err := cs.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	load := func() (map[limits.CounterID]limits.Snapshot, limits.StoredCounters) {
		t.Helper()
		sc, err := cs.LoadCounters()
		if err != nil {
			t.Fatal(err)
		}
		m := map[limits.CounterID]limits.Snapshot{}
		for _, r := range sc.Records {
			m[r.CounterID] = r.Snapshot
		}
		if len(m) != len(sc.Records) {
			t.Fatalf("a counter loaded twice: %+v", sc.Records)
		}
		return m, sc
	}
	got, sc := load()
	want := map[limits.CounterID]limits.Snapshot{recs[0].CounterID: recs[0].Snapshot, recs[1].CounterID: recs[1].Snapshot}
	if !maps.Equal(got, want) || len(sc.Markers) != 0 || sc.Floor != 0 {
		t.Fatalf("loaded %+v", sc)
	}

	if err := cs.MarkReset([]limits.Key{tmpl}, 9); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkReset([]limits.Key{tmpl}, 6); err != nil { // lower: ignored
		t.Fatal(err)
	}
	got, sc = load()
	if len(got) != 1 || got[recs[0].CounterID] != recs[0].Snapshot || len(sc.Markers) != 1 || sc.Markers[tmpl] != 9 {
		t.Fatalf("after reset-one: %+v", sc)
	}
	if err := cs.DeleteCounters([]limits.CounterID{{Rule: team}}); err != nil {
		t.Fatal(err)
	}
	if got, _ = load(); len(got) != 0 {
		t.Fatalf("after DeleteCounters: %+v", got)
	}
	cs.QueueSnapshot(recs[0])
	cs.QueueSnapshot(recs[2])
	if err := cs.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkResetAll(12); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkResetAll(11); err != nil { // lower: ignored
		t.Fatal(err)
	}
	got, sc = load()
	if len(got) != 0 || sc.Floor != 12 || len(sc.Markers) != 1 || sc.Markers[tmpl] != 9 {
		t.Fatalf("after reset-all: %+v", sc)
	}
}

// LimitsEngineSurvivesRestart runs a rate-limit engine over the stores
// open returns across restarts: manual rules come back and, when the
// engine keeps counters (open returns a CounterStore, nil otherwise),
// their counts and a reset of one rule come back too. open returns the
// engine's stores as a newly started process sees them; each call ends
// the handle it returned before where the engine allows one at a time
// (the suite closes the engine first).
func LimitsEngineSurvivesRestart(t *testing.T, open func() (limits.RuleStore, limits.CounterStore)) {
	t.Helper()
	var ns atomic.Int64
	ns.Store(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, ns.Load()).UTC() }
	counted := false
	start := func() *limits.Engine {
		t.Helper()
		rs, cs := open()
		counted = cs != nil
		e, err := limits.New(limits.Options{Rules: rs, Counters: cs, Now: now, TokensEnforced: true, QuotaTemplates: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetConfigRules(nil); err != nil {
			t.Fatal(err)
		}
		return e
	}
	restart := func(e *limits.Engine) *limits.Engine {
		t.Helper()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return start()
	}
	e := start()
	hourly := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 5}
	tmpl := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/customers", PeriodSeconds: 600, MaxRequests: 2, PerChild: true}
	for _, r := range []limits.Rule{hourly, tmpl} {
		if err := e.Upsert(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	admit := func(e *limits.Engine, path string, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			a, rej := e.AdmitUserPath(path)
			if rej != nil {
				t.Fatalf("%s request %d refused: %s", path, i, rej.Reason)
			}
			a.Done(3)
		}
	}
	admit(e, "/team", 4)
	admit(e, "/customers/alice", 2)
	ns.Add(int64(time.Minute))
	e = restart(e)
	defer func() { e.Close() }()
	keys := func(rules []limits.RuleStatus) []limits.Key {
		var ks []limits.Key
		for _, r := range rules {
			ks = append(ks, r.Key)
		}
		return ks
	}
	if ks := keys(e.Rules()); len(ks) != 2 || !slices.Contains(ks, hourly.Key()) || !slices.Contains(ks, tmpl.Key()) {
		t.Fatalf("rules after restart: %+v", e.Rules())
	}
	if !counted {
		return
	}
	usage := func(e *limits.Engine, path string) int64 {
		t.Helper()
		for _, s := range e.StatusFor(path) {
			if s.Rule.PerChild == (path != "/team") {
				return s.Usage.RequestsUsed
			}
		}
		t.Fatalf("no rule for %s", path)
		return 0
	}
	if usage(e, "/team") != 4 || usage(e, "/customers/alice") != 2 {
		t.Fatalf("counters after restart: team %d alice %d", usage(e, "/team"), usage(e, "/customers/alice"))
	}
	if err := e.ResetOne(tmpl.Key()); err != nil {
		t.Fatal(err)
	}
	e = restart(e)
	if usage(e, "/team") != 4 || usage(e, "/customers/alice") != 0 {
		t.Fatalf("reset undone or counters lost: team %d alice %d", usage(e, "/team"), usage(e, "/customers/alice"))
	}
}
