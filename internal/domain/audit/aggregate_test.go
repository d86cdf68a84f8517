package audit

import (
	"testing"
	"time"
)

func TestAuditHourLatencyNeedsAProviderAnswer(t *testing.T) {
	at := time.Date(2026, 3, 30, 10, 15, 0, 0, time.UTC)
	entry := func(status int, cache string, attempts ...Attempt) *Entry {
		return &Entry{ID: NewID(at), StatusCode: status, DurationNs: 7, ProviderName: "p", CacheType: cache,
			Data: &Data{Attempts: attempts}}
	}
	ok := Attempt{Seq: 1, StatusCode: 200, Success: true}
	failed := Attempt{Seq: 1, StatusCode: 500}
	for _, c := range []struct {
		name string
		e    *Entry
		want int64
	}{
		{"answered by the provider", entry(200, "", ok), 1},
		{"answered after a failover", entry(200, "", failed, Attempt{Seq: 2, StatusCode: 200, Success: true}), 1},
		{"answered by the gateway itself", entry(200, ""), 0},
		{"no details recorded", &Entry{ID: NewID(at), StatusCode: 200, ProviderName: "p"}, 0},
		{"response-cache hit", entry(200, CacheTypeExact), 0},
		{"provider failed", entry(502, "", failed), 0},
		{"client left", entry(499, "", ok), 0},
	} {
		h := AuditHourOf(c.e)
		if h.LatencyCount != c.want || h.Requests != 1 || h.Hour != at.Truncate(time.Hour) {
			t.Errorf("%s: %+v", c.name, h)
		}
	}
}
