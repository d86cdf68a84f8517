package admin

import (
	"fmt"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// downKeys is a keys.Backend whose server stopped answering: it loads
// nothing and every write fails with store.ErrUnavailable.
type downKeys struct{}

func (downKeys) Load(func(key, value []byte) error) error { return nil }
func (downKeys) Put(key, value []byte) error {
	return fmt.Errorf("%w: dial tcp 127.0.0.1:5432: connection refused", store.ErrUnavailable)
}
func (downKeys) Delete(...[]byte) error          { return fmt.Errorf("%w: closed pool", store.ErrUnavailable) }
func (downKeys) PutLater(key, value []byte) bool { return false }

// downRules is a limits.RuleStore in the same state.
type downRules struct{}

func (downRules) LoadRules() ([]limits.Rule, []error, error) { return nil, nil, nil }
func (downRules) ReplaceRule(*limits.Rule, *limits.Key) error {
	return fmt.Errorf("%w: timeout", store.ErrUnavailable)
}

// TestAdminWritesAnswer503WhenStorageIsUnreachable: a write the storage
// refuses as unreachable answers 503 storage_unavailable in the gateway
// error shape with Retry-After, not 500, and nothing changes.
func TestAdminWritesAnswer503WhenStorageIsUnreachable(t *testing.T) {
	svc, err := keys.Open(downKeys{}, keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := limits.New(limits.Options{Rules: downRules{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Keys = svc; o.RateLimits = eng })

	res := do(h, "POST", "/admin/auth-keys", `{"name":"ci"}`)
	res.expectErr(t, 503, "provider_error", "storage_unavailable")
	if res.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if svc.Count() != 0 {
		t.Fatal("the key was created although it was not stored")
	}
	do(h, "PUT", "/admin/rate-limits", `{"user_path":"/team","period":"minute","max_requests":3}`).
		expectErr(t, 503, "provider_error", "storage_unavailable")
	if len(eng.Rules()) != 0 {
		t.Fatalf("rule in force although not stored: %+v", eng.Rules())
	}
}

// downEntries is an audit.EntryStorage whose server stopped answering.
type downEntries struct{}

func (downEntries) AppendEntry(*audit.Entry) bool { return false }
func (downEntries) Entry(audit.ID) (*audit.Entry, error) {
	return nil, fmt.Errorf("%w: connection refused", store.ErrUnavailable)
}
func (downEntries) ListEntries(audit.EntryQuery) (audit.EntryPage, error) {
	return audit.EntryPage{}, fmt.Errorf("postgres: listing audit entries: %w", fmt.Errorf("%w: connection refused", store.ErrUnavailable))
}
func (downEntries) SessionEntryIDs(string, string) ([]audit.ID, error) {
	return nil, fmt.Errorf("%w: timeout", store.ErrUnavailable)
}
func (downEntries) AuditHours(time.Time, time.Time) ([]audit.AuditHour, error) {
	return nil, fmt.Errorf("%w: timeout", store.ErrUnavailable)
}
func (downEntries) DeleteEntriesBefore(time.Time, int) (int, error) { return 0, nil }

// TestAdminReadsAnswer503WhenStorageIsUnreachable: a read of the audit log
// while its storage does not answer is 503 storage_unavailable with
// Retry-After, as writes are, not 500.
func TestAdminReadsAnswer503WhenStorageIsUnreachable(t *testing.T) {
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Audit = audit.NewQueries(downEntries{}, nil) })
	for _, path := range []string{"/admin/audit/log", "/admin/audit/stats"} {
		res := do(h, "GET", path, "")
		res.expectErr(t, 503, "provider_error", "storage_unavailable")
		if res.header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", path)
		}
	}
}
