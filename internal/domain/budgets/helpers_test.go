package budgets

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/userpath"
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
		if r.at.Before(since) || !userpath.Covers(prefix, r.path) {
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

// memStorage is a Storage in memory that can be made to fail.
type memStorage struct {
	mu       sync.Mutex
	budgets  map[Key]Budget
	settings *Settings
	resets   map[Key]time.Time
	fail     bool
}

func newMemStorage() *memStorage {
	return &memStorage{budgets: map[Key]Budget{}, resets: map[Key]time.Time{}}
}

var errStorage = errors.New("disk full")

func (m *memStorage) Budgets() ([]Budget, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Budget
	for _, b := range m.budgets {
		out = append(out, b)
	}
	return out, nil
}

func (m *memStorage) PutBudget(b Budget) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStorage
	}
	m.budgets[b.Key()] = b
	return nil
}

func (m *memStorage) DeleteBudget(k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStorage
	}
	delete(m.budgets, k)
	delete(m.resets, k)
	return nil
}

func (m *memStorage) Settings() (Settings, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.settings == nil {
		return Settings{}, false, nil
	}
	return *m.settings, true, nil
}

func (m *memStorage) PutSettings(s Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStorage
	}
	m.settings = &s
	return nil
}

func (m *memStorage) Resets() (map[Key]time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[Key]time.Time{}
	for k, v := range m.resets {
		out[k] = v
	}
	return out, nil
}

func (m *memStorage) PutResets(r map[Key]time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStorage
	}
	for k, v := range r {
		m.resets[k] = v
	}
	return nil
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// contains is strings.Contains, kept short for assertions.
func contains(s, sub string) bool { return strings.Contains(s, sub) }
