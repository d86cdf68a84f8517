package boltstore

import (
	"encoding/binary"
	"testing"

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

// TestRateLimitRulesLegacy: records written before rules had a source
// field still load. (The RuleStore contract is storetest.RuleStore.)
func TestRateLimitRulesLegacy(t *testing.T) {
	st, _ := tempStore(t)
	rs := NewRateLimits(st)
	a := limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour, MaxRequests: 10, Source: limits.SourceManual}
	if err := rs.ReplaceRule(&a, nil); err != nil {
		t.Fatal(err)
	}
	err := st.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(BucketRateLimitRules)).Put([]byte(ruleKey(a.Key())),
			[]byte(`{"scope":"user_path","subject":"/team","period":"hour","max_requests":10}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if rules, skipped, err := rs.LoadRules(); err != nil || len(skipped) != 0 || len(rules) != 1 || rules[0].Key() != a.Key() || rules[0].MaxRequests != 10 {
		t.Fatalf("old record read as %+v, %v %v", rules, skipped, err)
	}
}

// TestRateLimitCountersGarbage: unreadable records of the counters bucket
// (a short snapshot, a bad key, a bad marker) are dropped at load and
// deleted from the file; a negative count does not decode. (The
// CounterStore contract is storetest.CounterStore.)
func TestRateLimitCountersGarbage(t *testing.T) {
	st, _ := tempStore(t)
	cs := NewRateLimits(st)
	team := limits.Key{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodHour}
	tmpl := limits.Key{Scope: limits.ScopeUserPath, Subject: "/c", PeriodSeconds: 60}
	if err := cs.MarkReset([]limits.Key{tmpl}, 9); err != nil {
		t.Fatal(err)
	}
	if err := cs.MarkResetAll(12); err != nil {
		t.Fatal(err)
	}
	err := st.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketRateLimitCounters))
		b.Put(counterKey(limits.CounterID{Rule: team}), []byte{9, 9})
		b.Put([]byte("c\x00bad"), encodeSnapshot(limits.Snapshot{}))
		b.Put([]byte(markerPrefix+"nonsense"), binary.BigEndian.AppendUint64(nil, 1))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := cs.LoadCounters()
	if err != nil || len(sc.Records) != 0 || sc.Floor != 12 || len(sc.Markers) != 1 || sc.Markers[tmpl] != 9 {
		t.Fatalf("after garbage: %+v, %v", sc, err)
	}
	n := 0
	st.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket([]byte(BucketRateLimitCounters)).Stats().KeyN
		return nil
	})
	if n != 2 { // the floor and tmpl's marker
		t.Fatalf("%d records left; garbage not deleted", n)
	}
	if _, ok := decodeSnapshot(encodeSnapshot(limits.Snapshot{Requests: -1})); ok {
		t.Fatal("negative count decoded")
	}
}
