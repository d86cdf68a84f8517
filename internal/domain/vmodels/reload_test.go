package vmodels

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
)

// memStorage is a Storage in memory that several services can share, as
// processes share a database.
type memStorage struct {
	mu   sync.Mutex
	rows map[string]Row
	fo   Failover
	fail bool // reads fail
}

func newMemStorage() *memStorage { return &memStorage{rows: map[string]Row{}, fo: Failover{}} }

func (m *memStorage) VirtualModels() ([]Row, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return nil, errors.New("storage down")
	}
	return slices.Collect(maps.Values(m.rows)), nil
}

func (m *memStorage) PutVirtualModel(r Row, oldSource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if oldSource != "" && oldSource != r.Source {
		delete(m.rows, oldSource)
	}
	m.rows[r.Source] = r
	return nil
}

func (m *memStorage) DeleteVirtualModel(source string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rows, source)
	return nil
}

func (m *memStorage) FailoverRoutes() (Failover, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return nil, errors.New("storage down")
	}
	return maps.Clone(m.fo), nil
}

func (m *memStorage) PutFailoverRoute(primary string, targets []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fo[primary] = slices.Clone(targets)
	return nil
}

func (m *memStorage) DeleteFailoverRoute(primary string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.fo, primary)
	return nil
}

func openShared(t *testing.T, st Storage, managed List, fo Failover) *Service {
	t.Helper()
	s, warns, err := Open(Options{Storage: st, Managed: managed, ManagedFailover: fo, Providers: testProviders})
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	return s
}

func mustReload(t *testing.T, s *Service) []string {
	t.Helper()
	w, err := s.Reload()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestReloadTakesInRowsAndRoutesWrittenElsewhere(t *testing.T) {
	st := newMemStorage()
	one := openShared(t, st, nil, nil)
	two := openShared(t, st, nil, nil)

	if _, err := one.Put(VirtualModel{Source: "fast", Targets: []Target{{Provider: "a", Model: "x"}}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := two.Resolve("fast", "/", "", nil); ok {
		t.Fatal("resolved before reloading")
	}
	mustReload(t, two)
	if c, ok, err := two.Resolve("fast", "/", "", nil); !ok || err != nil || c.Provider != "a" {
		t.Fatalf("after reload: %+v %v %v", c, ok, err)
	}

	// A rename moves the row.
	if _, err := one.Put(VirtualModel{Source: "quick", Targets: []Target{{Provider: "b", Model: "y"}}}, "fast"); err != nil {
		t.Fatal(err)
	}
	if _, err := one.PutFailover("a/x", []string{"b/y"}); err != nil {
		t.Fatal(err)
	}
	mustReload(t, two)
	if _, ok, _ := two.Resolve("fast", "/", "", nil); ok {
		t.Fatal("the renamed row still resolves under its old name")
	}
	if c, ok, _ := two.Resolve("quick", "/", "", nil); !ok || c.Provider != "b" {
		t.Fatalf("renamed row: %+v %v", c, ok)
	}
	if r := two.FailoverRoutes(); len(r) != 1 || r[0].PrimaryModel != "a/x" || !slices.Equal(r[0].Targets, []string{"b/y"}) {
		t.Fatalf("routes %+v", r)
	}

	if err := one.Delete("quick"); err != nil {
		t.Fatal(err)
	}
	if err := one.DeleteFailover("a/x"); err != nil {
		t.Fatal(err)
	}
	mustReload(t, two)
	if _, ok, _ := two.Resolve("quick", "/", "", nil); ok || len(two.List()) != 0 || len(two.FailoverRoutes()) != 0 {
		t.Fatalf("deleted elsewhere, yet rows %+v routes %+v", two.List(), two.FailoverRoutes())
	}
}

func TestReloadWithoutChangesKeepsSessionPins(t *testing.T) {
	st := newMemStorage()
	s := openShared(t, st, nil, nil)
	if _, err := s.Put(VirtualModel{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}, ""); err != nil {
		t.Fatal(err)
	}
	before := s.snap.Load()
	first, _, _ := s.Resolve("m", "/u", "sess", nil)
	mustReload(t, s)
	if s.snap.Load() != before {
		t.Fatal("a reload with nothing changed replaced the snapshot")
	}
	for range 5 {
		if c, _, _ := s.Resolve("m", "/u", "sess", nil); c != first {
			t.Fatalf("pin lost: %+v, want %+v", c, first)
		}
	}
}

func TestReloadKeepsConfigurationRowsOnTop(t *testing.T) {
	st := newMemStorage()
	managed := List{{Source: "cfg", Targets: []Target{{Provider: "a", Model: "x"}}}}
	s := openShared(t, st, managed, Failover{"a/x": {"c/z"}})
	// Another process (with another configuration) stored rows under the
	// names this configuration manages.
	_ = st.PutVirtualModel(Row{VirtualModel: VirtualModel{Source: "cfg", Targets: []Target{{Provider: "b", Model: "y"}}}}, "")
	_ = st.PutFailoverRoute("a/x", []string{"b/y"})
	_ = st.PutVirtualModel(Row{VirtualModel: VirtualModel{Source: "gone", Targets: []Target{{Provider: "nope", Model: "y"}}}}, "")
	warns := mustReload(t, s)
	if len(warns) != 1 {
		t.Fatalf("warnings %q, want one for the row naming an unknown provider", warns)
	}
	if c, _, _ := s.Resolve("cfg", "/", "", nil); c.Provider != "a" {
		t.Fatalf("configuration row overridden: %+v", c)
	}
	if r := s.FailoverRoutes(); len(r) != 1 || !r[0].Managed || r[0].Targets[0] != "c/z" {
		t.Fatalf("routes %+v", r)
	}
	// The same unfitting row again: nothing changed, no repeated warning.
	if warns := mustReload(t, s); len(warns) != 0 {
		t.Fatalf("repeated warnings %q", warns)
	}
}

func TestReloadFailureChangesNothing(t *testing.T) {
	st := newMemStorage()
	s := openShared(t, st, nil, nil)
	if _, err := s.Put(VirtualModel{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}}}, ""); err != nil {
		t.Fatal(err)
	}
	st.fail = true
	if _, err := s.Reload(); err == nil {
		t.Fatal("a failed read was not reported")
	}
	if _, ok, _ := s.Resolve("m", "/", "", nil); !ok {
		t.Fatal("a failed reload dropped the rows")
	}
	noStorage := open(t, nil)
	if w, err := noStorage.Reload(); err != nil || w != nil {
		t.Fatal(w, err)
	}
}
