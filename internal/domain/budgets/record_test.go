package budgets

import (
	"errors"
	"testing"
	"time"
)

// Stored budget and reset records as written before the codec moved into
// this package: databases hold these bytes, so they must never change.
const (
	storedNamedBudget  = `{"user_path":"/team/app","period":"daily","period_seconds":86400,"amount":12.5,"per_child":true,"created_at":"2026-01-02T01:04:05.123456789Z","updated_at":"2026-03-04T05:06:07Z"}`
	storedCustomBudget = `{"user_path":"/","period":"600","period_seconds":600,"amount":0,"per_child":false,"created_at":"2026-01-02T01:04:05.123456789Z","updated_at":"2026-03-04T05:06:07Z"}`
	storedCustomReset  = `{"user_path":"/team","period":"86400","period_seconds":86400,"at":"2026-01-02T01:04:05.123456789Z"}`
	storedNamedReset   = `{"user_path":"/team","period":"monthly","period_seconds":2592000,"at":"2026-01-02T01:04:05.123456789Z"}`
)

// recordTimes are the times of the pinned records: created in a zone
// other than UTC (stored in UTC), updated on a whole second.
func recordTimes() (created, updated time.Time) {
	return time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("X", 2*3600)),
		time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
}

// TestBudgetRecordPinned: a budget encodes to the stored bytes of the
// earlier stores, and they decode back to it as a manual budget.
func TestBudgetRecordPinned(t *testing.T) {
	created, updated := recordTimes()
	for _, c := range []struct {
		b      Budget
		stored string
	}{
		{Budget{UserPath: "/team/app", Period: Daily, Amount: 12.5, PerChild: true, CreatedAt: created, UpdatedAt: updated}, storedNamedBudget},
		{Budget{UserPath: "/", Period: 600, CreatedAt: created, UpdatedAt: updated}, storedCustomBudget},
	} {
		v, err := EncodeBudget(c.b)
		if err != nil || string(v) != c.stored {
			t.Fatalf("encoded %s (%v)\n      want %s", v, err, c.stored)
		}
		got, err := DecodeBudget(v)
		if err != nil {
			t.Fatal(err)
		}
		want := c.b
		want.Source = SourceManual
		if got.Key() != want.Key() || got.Amount != want.Amount || got.PerChild != want.PerChild || got.Source != want.Source ||
			!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("decoded %+v\n   want %+v", got, want)
		}
	}
}

// TestResetRecordPinned: a reset mark encodes to the stored bytes of the
// earlier stores, and they decode back to its key and time; a custom
// period of a named period's length stays custom.
func TestResetRecordPinned(t *testing.T) {
	at, _ := recordTimes()
	for _, c := range []struct {
		k      Key
		stored string
	}{
		{Key{UserPath: "/team", Period: 86400}, storedCustomReset},
		{Key{UserPath: "/team", Period: Monthly}, storedNamedReset},
	} {
		v, err := EncodeReset(c.k, at)
		if err != nil || string(v) != c.stored {
			t.Fatalf("encoded %s (%v)\n      want %s", v, err, c.stored)
		}
		k, gotAt, err := DecodeReset(v)
		if err != nil || k != c.k || !gotAt.Equal(at) {
			t.Fatalf("decoded %v %v %v, want %v %v", k, gotAt, err, c.k, at)
		}
	}
}

// TestRecordWithoutPeriodName: a record whose period field is empty has
// the custom period of its period_seconds; a bad period or bad JSON is
// an error.
func TestRecordWithoutPeriodName(t *testing.T) {
	b, err := DecodeBudget([]byte(`{"user_path":"/a","period_seconds":86400,"amount":1}`))
	if err != nil || b.Period != 86400 || b.Period == Daily {
		t.Fatalf("budget %+v %v", b, err)
	}
	k, _, err := DecodeReset([]byte(`{"user_path":"/a","period_seconds":600,"at":"2026-01-02T01:04:05Z"}`))
	if err != nil || k != (Key{UserPath: "/a", Period: 600}) {
		t.Fatalf("reset %v %v", k, err)
	}
	if _, err := DecodeBudget([]byte(`{"user_path":"/a","period":"fortnightly"}`)); !errors.Is(err, ErrInvalidBudget) {
		t.Fatalf("bad period: %v", err)
	}
	if _, _, err := DecodeReset([]byte(`{"user_path":"/a","period_seconds":0}`)); !errors.Is(err, ErrInvalidBudget) {
		t.Fatalf("no period: %v", err)
	}
	if _, err := DecodeBudget([]byte(`{`)); err == nil {
		t.Fatal("bad JSON decoded")
	}
}
