package boltstore

import (
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestAggregateCostNanos: aggregate rows and session totals keep their
// cost in whole Nanos, and rows written before (version 1, a float64
// cost) read rounded to Nanos.
func TestAggregateCostNanos(t *testing.T) {
	a := audit.UsageAggregate{Requests: 3, CacheHits: 1, Unpriced: 1,
		Tokens: catalog.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}, Cost: 1_300_000_001}
	var got audit.UsageAggregate
	if err := decodeUsageAggSums(encodeUsageAgg(&a), &got); err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("read back %+v (%v)", got, err)
	}
	// Version 1: the sums, then the cost as 8 bytes of float64.
	old := []byte{aggVersionFloat}
	for _, v := range []int64{3, 1, 1} {
		old = binary.AppendVarint(old, v)
	}
	old = appendTokens(old, &a.Tokens)
	old = appendFloat(old, 1.3000000000117504) // a drifted float sum
	got = audit.UsageAggregate{}
	if err := decodeUsageAggSums(old, &got); err != nil || got.Cost != 1_300_000_000 || got.Requests != 3 {
		t.Fatalf("version 1 row read back %+v (%v)", got, err)
	}
	if err := decodeUsageAggSums(append([]byte{9}, old[1:]...), &got); err == nil {
		t.Fatal("an unknown version reads")
	}

	s := audit.SessionTotals{UserPath: "/a", SessionID: "s", FirstSeen: time.Unix(10, 0).UTC(), LastSeen: time.Unix(20, 0).UTC(),
		Requests: 2, Usage: a.Tokens, Cost: 2_600_000_000, Models: []string{"m"}}
	back, err := decodeSession(sessionKey("/a", "s"), appendSession(nil, &s))
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("session read back %+v (%v)", back, err)
	}
	oldS := []byte{aggVersionFloat}
	for _, v := range []int64{s.FirstSeen.UnixNano(), s.LastSeen.UnixNano(), 2, 0} {
		oldS = binary.AppendVarint(oldS, v)
	}
	oldS = appendTokens(oldS, &s.Usage)
	oldS = appendFloat(oldS, 2.6)
	oldS = appendLP(binary.AppendUvarint(oldS, 1), "m")
	if back, err = decodeSession(sessionKey("/a", "s"), oldS); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("version 1 session read back %+v (%v)", back, err)
	}
}
