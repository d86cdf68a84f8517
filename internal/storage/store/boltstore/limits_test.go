package boltstore

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

func TestRuleKeyRoundTrip(t *testing.T) {
	for _, k := range []limits.Key{
		{Scope: limits.ScopeUserPath, Subject: "/team/app", Period: limits.PeriodMinute},
		{Scope: limits.ScopeProvider, Subject: "openai", Period: limits.PeriodConcurrent},
		{Scope: limits.ScopeModel, Subject: "openai/gpt-4o", PeriodSeconds: 90},
	} {
		got, ok := parseRuleKey(ruleKey(k))
		if !ok || got != k {
			t.Errorf("parseRuleKey(ruleKey(%v)) = %v, %v", k, got, ok)
		}
		id := limits.CounterID{Rule: k, Child: "alice"}
		if got, ok := parseCounterKey(string(counterKey(id))); !ok || got != id {
			t.Errorf("counter key of %+v read back as %+v, %v", id, got, ok)
		}
	}
	for _, bad := range []string{"", "user_path", "user_path\x00week\x00/x", "user_path\x000s\x00/x", "user_path\x00-5s\x00/x"} {
		if _, ok := parseRuleKey(bad); ok {
			t.Errorf("parseRuleKey(%q) accepted", bad)
		}
	}
	if _, ok := parseCounterKey("c\x00nochild"); ok {
		t.Error("a counter key without a child separator was accepted")
	}
}

// TestRateLimitRules: rules round-trip in their JSON form, a replace is
// atomic, and unreadable records are skipped with a reason.
func TestRateLimitRules(t *testing.T) {
	st, _ := tempStore(t)
	rs := NewRateLimits(st)
	if rules, skipped, err := rs.LoadRules(); err != nil || len(rules) != 0 || len(skipped) != 0 {
		t.Fatalf("empty store: %v %v %v", rules, skipped, err)
	}
	a := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 10, MaxTokens: 99, Source: limits.SourceManual}
	b := limits.Rule{Scope: limits.ScopeModel, Subject: "gpt", PeriodSeconds: 30, MaxRequests: 1, Source: limits.SourceManual}
	if err := rs.ReplaceRule(&a, nil); err != nil {
		t.Fatal(err)
	}
	ak := a.Key()
	if err := rs.ReplaceRule(&b, &ak); err != nil {
		t.Fatal(err)
	}
	if err := rs.ReplaceRule(nil, &limits.Key{Scope: limits.ScopeProvider, Subject: "none", Period: limits.PeriodDay}); err != nil {
		t.Fatal("deleting a missing rule:", err)
	}
	err := st.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(BucketRateLimitRules)).Put([]byte("junk"), []byte("{not json"))
	})
	if err != nil {
		t.Fatal(err)
	}
	rules, skipped, err := rs.LoadRules()
	if err != nil || !reflect.DeepEqual(rules, []limits.Rule{b}) {
		t.Fatalf("rules %+v, %v; want only %+v", rules, err, b)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), `"junk"`) {
		t.Fatalf("skipped %v", skipped)
	}
	// Records written before rules had a source field still load.
	err = st.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(BucketRateLimitRules)).Put([]byte(ruleKey(ak)),
			[]byte(`{"scope":"user_path","subject":"/team","period":"hour","max_requests":10}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if rules, _, _ := rs.LoadRules(); len(rules) != 2 {
		t.Fatalf("old record not read: %+v", rules)
	}
}

// TestRateLimitCounters: snapshots queue and land at Flush, markers and
// the floor only rise and delete the records they void, and unreadable
// records are dropped at load.
func TestRateLimitCounters(t *testing.T) {
	st, _ := tempStore(t)
	cs := NewRateLimits(st)
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
	sc, err := cs.LoadCounters()
	if err != nil || !reflect.DeepEqual(sc.Records, []limits.CounterRecord{recs[1], recs[0]}) || len(sc.Markers) != 0 || sc.Floor != 0 {
		t.Fatalf("loaded %+v, %v", sc, err)
	}

	if err := cs.MarkReset([]limits.Key{tmpl}, 9); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkReset([]limits.Key{tmpl}, 6); err != nil { // lower: ignored
		t.Fatal(err)
	}
	sc, _ = cs.LoadCounters()
	if len(sc.Records) != 1 || sc.Records[0].Rule != team || sc.Markers[tmpl] != 9 {
		t.Fatalf("after reset-one: %+v", sc)
	}
	if err := cs.DeleteCounters([]limits.CounterID{{Rule: team}}); err != nil {
		t.Fatal(err)
	}
	cs.QueueSnapshot(recs[0])
	cs.Flush(t.Context())
	if err := cs.MarkResetAll(12); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkResetAll(11); err != nil {
		t.Fatal(err)
	}
	// Garbage: a short record, a bad key, a bad marker.
	err = st.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketRateLimitCounters))
		b.Put(counterKey(limits.CounterID{Rule: team}), []byte{9, 9})
		b.Put([]byte("c\x00bad"), encodeSnapshot(limits.Snapshot{}))
		b.Put([]byte(markerPrefix+"nonsense"), binary.BigEndian.AppendUint64(nil, 1))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sc, err = cs.LoadCounters()
	if err != nil || len(sc.Records) != 0 || sc.Floor != 12 || len(sc.Markers) != 1 {
		t.Fatalf("after reset-all and garbage: %+v, %v", sc, err)
	}
	n := 0
	st.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket([]byte(BucketRateLimitCounters)).Stats().KeyN
		return nil
	})
	if n != 2 { // the floor and tmpl's marker
		t.Fatalf("%d records left; garbage not deleted", n)
	}
	// A negative count is unreadable.
	if _, ok := decodeSnapshot(encodeSnapshot(limits.Snapshot{Requests: -1})); ok {
		t.Fatal("negative count decoded")
	}
}

// TestEngineOnBolt runs the rate-limit engine on the bbolt implementation
// across restarts: manual rules, counters and resets come back, as the
// on-disk format promises.
func TestEngineOnBolt(t *testing.T) {
	clk := newClock()
	st, path := tempStore(t)
	open := func() *limits.Engine {
		rl := NewRateLimits(st)
		e, err := limits.New(limits.Options{Rules: rl, Counters: rl, Now: clk.Now, TokensEnforced: true, QuotaTemplates: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetConfigRules(nil); err != nil {
			t.Fatal(err)
		}
		return e
	}
	restart := func(e *limits.Engine) *limits.Engine {
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		st = openStore(t, path)
		return open()
	}
	e := open()
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
	clk.Add(time.Minute)
	e = restart(e)
	usage := func(e *limits.Engine, path string) int64 {
		for _, s := range e.StatusFor(path) {
			if s.Rule.PerChild == (path != "/team") {
				return s.Usage.RequestsUsed
			}
		}
		t.Fatalf("no rule for %s", path)
		return 0
	}
	if len(e.Rules()) != 2 || usage(e, "/team") != 4 || usage(e, "/customers/alice") != 2 {
		t.Fatalf("after restart: %+v", e.Rules())
	}
	if err := e.ResetOne(tmpl.Key()); err != nil {
		t.Fatal(err)
	}
	e = restart(e)
	defer e.Close()
	if usage(e, "/team") != 4 || usage(e, "/customers/alice") != 0 {
		t.Fatalf("reset undone or counters lost: team %d alice %d", usage(e, "/team"), usage(e, "/customers/alice"))
	}
}
