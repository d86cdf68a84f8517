package admin

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// testNow is the clock of newTestHandler: Monday 2026-05-04 10:30 UTC.
var testNow = time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)

// record is a temp bbolt audit and usage store with the reads over it.
type record struct {
	st    *store.Store
	bolt  *boltstore.Audit
	ids   *audit.IDGenerator
	audit *audit.Queries
	usage *audit.UsageQueries
}

// newRecord opens a temp store; its reads use the clock now.
func newRecord(t *testing.T, now func() time.Time) *record {
	t.Helper()
	st, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "audit.db"), NoSync: true, FlushInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	b := boltstore.NewAudit(st)
	return &record{st: st, bolt: b, ids: audit.NewIDGenerator(),
		audit: audit.NewQueries(b, now), usage: audit.NewUsageQueries(b, now)}
}

// add writes a completed request at t (an entry and its usage record) and
// returns the entry.
func (rc *record) add(t *testing.T, at time.Time, status int, userPath, session, model string, cost float64) *audit.Entry {
	t.Helper()
	u := catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
	e := &audit.Entry{
		ID: rc.ids.New(at), RequestID: "req-" + at.Format(time.RFC3339Nano), Timestamp: at,
		Method: "POST", Path: "/v1/chat/completions", StatusCode: status, DurationNs: int64(200 * time.Millisecond),
		AuthMethod: "api_key", UserPath: userPath, SessionID: session,
		Provider: "openai", ProviderName: "openai-main", RequestedModel: model, ResolvedModel: model,
		Usage: audit.UsageOf(u),
		Data: &audit.Data{RequestBody: json.RawMessage(`{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`),
			ResponseBody: json.RawMessage(`{"id":"chatcmpl-1"}`),
			Attempts:     []audit.Attempt{{Seq: 1, ProviderName: "openai-main", StatusCode: status, Success: status < 400}}},
	}
	if !rc.bolt.AppendEntry(e) {
		t.Fatal("entry rejected")
	}
	r := &audit.UsageRecord{ID: rc.ids.New(at), RequestID: e.ID, Timestamp: at, UserPath: userPath, SessionID: session,
		ProviderName: "openai-main", ProviderType: "openai", Model: model, Endpoint: "/v1/chat/completions", Usage: u,
		TotalCost: &cost}
	if !rc.bolt.AppendUsage(r) {
		t.Fatal("usage record rejected")
	}
	return e
}

// flush commits everything queued.
func (rc *record) flush(t *testing.T) {
	t.Helper()
	if err := rc.st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// seeded returns a handler over a record holding three requests: two of
// session s1 under /team/a on 2026-05-03 and 2026-05-04, a 500 of another
// user path on 2026-05-04. edit changes the configuration.
func seeded(t *testing.T, edit func(c *config.Config, o *Options)) (*Handler, *record, []*audit.Entry) {
	t.Helper()
	rc := newRecord(t, func() time.Time { return testNow })
	es := []*audit.Entry{
		rc.add(t, testNow.Add(-25*time.Hour), 200, "/team/a", "s1", "gpt-4o-mini", 0.5),
		rc.add(t, testNow.Add(-time.Hour), 200, "/team/a", "s1", "gpt-4o", 0.25),
		rc.add(t, testNow.Add(-30*time.Minute), 500, "/team/b", "", "gpt-4o", 0),
	}
	rc.flush(t)
	h, _ := newTestHandler(t, func(c *config.Config, o *Options) {
		o.Audit, o.Usage = rc.audit, rc.usage
		if edit != nil {
			edit(c, o)
		}
	})
	return h, rc, es
}
