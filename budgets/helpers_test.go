package budgets

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// record is one priced usage record of the fake source.
type record struct {
	path string
	cost float64
	at   time.Time
}

// fakeSource is a SpendSource over a list of records, with the same
// covering rule a real one must use. It remembers its queries.
type fakeSource struct {
	mu      sync.Mutex
	records []record
	queries []sourceQuery
	fail    map[string]bool // prefixes whose query fails
}

type sourceQuery struct {
	prefix   string
	perChild bool
	since    time.Time
}

func (f *fakeSource) add(path string, cost float64, at time.Time) {
	f.mu.Lock()
	f.records = append(f.records, record{path, cost, at})
	f.mu.Unlock()
}

func (f *fakeSource) SpendSince(prefix string, perChild bool, since time.Time) (map[string]float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, sourceQuery{prefix, perChild, since})
	if f.fail[prefix] {
		return nil, errors.New("source down")
	}
	out := map[string]float64{}
	for _, r := range f.records {
		if r.at.Before(since) || !Covers(prefix, r.path) {
			continue
		}
		if !perChild {
			out[prefix] += r.cost
			continue
		}
		if c, ok := ChildOf(prefix, r.path); ok {
			out[c] += r.cost
		}
	}
	return out, nil
}

// newTestTracker returns a tracker holding list (normalized) under s.
func newTestTracker(t testing.TB, s Settings, now time.Time, list ...Budget) *Tracker {
	t.Helper()
	tr := NewTracker()
	for i := range list {
		if list[i].Source == "" {
			list[i].Source = SourceManual
		}
		b, err := list[i].Normalized()
		if err != nil {
			t.Fatal(err)
		}
		list[i] = b
	}
	if _, err := tr.Set(list, s, now); err != nil {
		t.Fatal(err)
	}
	return tr
}

// mustCheck asserts Check's answer.
func mustCheck(t *testing.T, tr *Tracker, path string, now time.Time, wantOK bool) (time.Duration, *Budget) {
	t.Helper()
	ok, wait, which := tr.Check(path, now)
	if ok != wantOK {
		t.Fatalf("Check(%s) ok = %v, want %v (which %+v)", path, ok, wantOK, which)
	}
	if ok && (wait != 0 || which != nil) {
		t.Fatalf("admitted with wait %v which %+v", wait, which)
	}
	return wait, which
}

// spentOf is the spend of budget k for a caller on userPath.
func spentOf(t testing.TB, tr *Tracker, k Key, userPath string, now time.Time) float64 {
	t.Helper()
	v, err := tr.Spent(k, userPath, now)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
