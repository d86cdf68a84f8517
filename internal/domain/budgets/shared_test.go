package budgets

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// memSpend is a SpendStore in memory that two trackers can share, and
// that fails every call while down is set.
type memSpend struct {
	mu    sync.Mutex
	win   map[SpendWindow]map[string]float64
	down  atomic.Bool
	calls atomic.Int64
	resv  map[SpendCell]map[string]catalog.Nanos // by resvCell, then id
	marks map[SpendWindow]string
	lost  bool // the epoch is missing: charges answer ErrSpendLost
}

// wipe empties the store as a server restarting without its data.
func (m *memSpend) wipe() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.win, m.resv, m.marks, m.lost = map[SpendWindow]map[string]float64{}, nil, nil, true
}

// charging is enter for the calls that answer ErrSpendLost.
func (m *memSpend) charging() error {
	if err := m.enter(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lost {
		return ErrSpendLost
	}
	return nil
}

func (m *memSpend) Mark(_ context.Context, w SpendWindow) (string, error) {
	if err := m.enter(); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.marks[w], nil
}

func (m *memSpend) HandOver(_ context.Context, w SpendWindow, spend map[string]catalog.Nanos, mark string) (bool, error) {
	if err := m.charging(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.marks[w] != mark {
		return false, nil
	}
	if m.win[w] == nil {
		m.win[w] = map[string]float64{}
	}
	for k, v := range spend {
		m.win[w][k] += v.Float()
	}
	return true, nil
}

func (m *memSpend) Lost(context.Context) (bool, error) {
	if err := m.enter(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lost, nil
}

func newMemSpend() *memSpend { return &memSpend{win: map[SpendWindow]map[string]float64{}} }

var errDown = errors.New("store down")

func (m *memSpend) enter() error {
	m.calls.Add(1)
	if m.down.Load() {
		return errDown
	}
	return nil
}

func (m *memSpend) Spend(_ context.Context, cells []SpendCell) ([]float64, error) {
	if err := m.charging(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]float64, len(cells))
	for i, c := range cells {
		out[i] = m.win[c.Window][c.Child]
	}
	return out, nil
}

func (m *memSpend) Add(_ context.Context, cells []SpendCell, cost float64) ([]float64, error) {
	if err := m.charging(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]float64, len(cells))
	for i, c := range cells {
		w := m.win[c.Window]
		if w == nil {
			w = map[string]float64{}
			m.win[c.Window] = w
		}
		w[c.Child] += cost
		out[i] = w[c.Child]
	}
	return out, nil
}

func (m *memSpend) Windows(_ context.Context, ws []SpendWindow) ([]map[string]float64, error) {
	if err := m.enter(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]map[string]float64, len(ws))
	for i, w := range ws {
		got, ok := m.win[w]
		if !ok {
			continue
		}
		out[i] = map[string]float64{}
		for k, v := range got {
			out[i][k] = v
		}
	}
	return out, nil
}

func (m *memSpend) Seed(ctx context.Context, w SpendWindow, spend map[string]float64, mark string) (map[string]float64, error) {
	if err := m.enter(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if _, ok := m.win[w]; !ok {
		if m.marks == nil {
			m.marks = map[SpendWindow]string{}
		}
		m.marks[w] = mark
		cp := map[string]float64{}
		for k, v := range spend {
			cp[k] = v
		}
		m.win[w] = cp
	}
	m.mu.Unlock()
	got, err := m.Windows(ctx, []SpendWindow{w})
	if err != nil {
		return nil, err
	}
	return got[0], nil
}

func (m *memSpend) Restored(context.Context) error {
	if err := m.enter(); err != nil {
		return err
	}
	m.mu.Lock()
	m.lost = false
	m.mu.Unlock()
	return nil
}

func (m *memSpend) Clear(_ context.Context, w SpendWindow) error {
	if err := m.enter(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.win[w] = map[string]float64{}
	delete(m.marks, w)
	return nil
}

// sharedPair returns two trackers over one store, each with list.
func sharedPair(t *testing.T, st SpendStore, now time.Time, list ...Budget) (*Tracker, *Tracker) {
	t.Helper()
	a := NewTracker()
	a.ShareSpend(st, 0, nil)
	b := NewTracker()
	b.ShareSpend(st, 0, nil)
	for _, tr := range []*Tracker{a, b} {
		l := append([]Budget(nil), list...)
		for i := range l {
			l[i].Source = SourceManual
			nb, err := l[i].Normalized()
			if err != nil {
				t.Fatal(err)
			}
			l[i] = nb
		}
		if _, err := tr.Set(l, DefaultSettings(), now); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

// waitOwed waits for a tracker's background flush to end and checks it
// handed what it owed to its store. Callers run in a synctest bubble.
func waitOwed(t *testing.T, tr *Tracker) {
	t.Helper()
	synctest.Wait()
	if tr.sh.owed.Load() > 0 || tr.sh.flushing.Load() {
		t.Fatal("owed charges not handed to the store")
	}
}

func TestSharedSpendExhaustsAtBoth(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a, b := sharedPair(t, newMemSpend(), now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	a.Charge("/team/app", 0.6, now)
	if ok, _, _ := b.Check("/team/x", now); !ok {
		t.Fatal("refused at $0.60 of $1")
	}
	b.Charge("/team/x", 0.5, now)
	for name, tr := range map[string]*Tracker{"a": a, "b": b} {
		ok, wait, which := tr.Check("/team/app", now)
		if ok || which == nil || which.UserPath != "/team" || wait != 14*time.Hour {
			t.Fatalf("%s: ok=%v wait=%v which=%v after $1.10 of $1 through both", name, ok, wait, which)
		}
	}
	if got, _ := a.Spent(Key{"/team", Daily}, "/team", now); got < 1.0999 || got > 1.1001 {
		t.Fatalf("a shows %v spent, want 1.10", got)
	}
	if ok, _, _ := a.Check("/other", now); !ok {
		t.Fatal("a path no budget covers was refused")
	}
}

func TestSharedSpendTemplateChildren(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a, b := sharedPair(t, newMemSpend(), now, Budget{UserPath: "/customers", Period: Hourly, Amount: 1, PerChild: true})
	a.Charge("/customers/alice/app", 0.7, now)
	b.Charge("/customers/alice", 0.4, now)
	b.Charge("/customers/bob", 0.2, now)
	if ok, _, _ := a.Check("/customers/alice/x", now); ok {
		t.Fatal("alice admitted past her $1 spent through both")
	}
	if ok, _, _ := b.Check("/customers/bob", now); !ok {
		t.Fatal("bob refused for alice's spend")
	}
	kids, err := b.ChildSpend(Key{"/customers", Hourly}, now)
	if err != nil || len(kids) != 2 || kids["/customers/alice"] < 1.0999 || kids["/customers/bob"] != 0.2 {
		t.Fatalf("children at b: %v, %v", kids, err)
	}
}

func TestSharedSpendResetClearsEveryProcess(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a, b := sharedPair(t, newMemSpend(), now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	b.Charge("/team", 2, now)
	if ok, _, _ := a.Check("/team", now); ok {
		t.Fatal("admitted over budget")
	}
	if err := a.Reset(Key{"/team", Daily}, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := b.Check("/team", now.Add(2*time.Minute)); !ok {
		t.Fatal("refused at the other process after a reset")
	}
}

func TestSharedSpendFallsBackAndResyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		a, b := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
		a.Charge("/team", 0.5, now)
		st.down.Store(true)
		// Served from memory: a knows its own 0.5 and adds the next 0.6.
		a.Charge("/team", 0.6, now)
		if ok, _, _ := a.Check("/team", now); ok {
			t.Fatal("a admitted with $1.10 spent in its own memory while the store is down")
		}
		if ok, _, _ := b.Check("/team", now); !ok {
			t.Fatal("b refused with nothing charged through it while the store is down")
		}
		if a.SpendFallbacks() == 0 {
			t.Fatal("no fallback counted")
		}
		st.down.Store(false)
		a.sh.downUntil.Store(0)
		b.sh.downUntil.Store(0)
		a.Charge("/team", 0.01, now) // succeeds and hands over the owed 0.6
		waitOwed(t, a)
		if ok, _, _ := b.Check("/team", now); ok {
			t.Fatal("the charge made while the store was down did not reach it")
		}
		if got, _ := b.Spent(Key{"/team", Daily}, "/team", now); got < 1.1099 || got > 1.1101 {
			t.Fatalf("store holds %v, want 1.11", got)
		}
	})
}

func TestSharedSpendSkipsAFailedStoreForAWhile(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	a, _ := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	st.down.Store(true)
	a.Check("/team", now)
	n := st.calls.Load()
	for range 100 {
		a.Check("/team", now)
	}
	if got := st.calls.Load() - n; got != 0 {
		t.Fatalf("%d store calls within the retry delay after a failure", got)
	}
}

func TestSharedSpendResetWhileDownIsApplied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		a, b := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
		a.Charge("/team", 3, now)
		st.down.Store(true)
		if err := a.Reset(Key{"/team", Daily}, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		st.down.Store(false)
		a.sh.downUntil.Store(0)
		b.sh.downUntil.Store(0)
		a.Charge("/team", 0.1, now.Add(2*time.Minute))
		waitOwed(t, a)
		if ok, _, _ := b.Check("/team", now.Add(3*time.Minute)); !ok {
			t.Fatal("a reset made while the store was down was not applied when it returned")
		}
	})
}

func TestSharedRebuildTrustsTheStore(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	src := &fakeSource{}
	src.add("/team", 0.4, now.Add(-time.Hour))
	a, b := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	// The first process to start seeds the store from the usage records.
	if err := a.Rebuild(src, now); err != nil {
		t.Fatal(err)
	}
	if len(src.queries) != 1 {
		t.Fatalf("%d source queries, want 1", len(src.queries))
	}
	a.Charge("/team", 0.3, now)
	// The usage of that charge is in the records too; a second process
	// starting now must not count it twice.
	src.add("/team", 0.3, now)
	if err := b.Rebuild(src, now); err != nil {
		t.Fatal(err)
	}
	if len(src.queries) != 1 {
		t.Fatalf("the source was read although the store holds the window (%d queries)", len(src.queries))
	}
	st.down.Store(true)
	if got, _ := b.Spent(Key{"/team", Daily}, "/team", now); got < 0.6999 || got > 0.7001 {
		t.Fatalf("rebuilt %v, want 0.70", got)
	}
}

func TestServiceWithSpendStore(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	clk := func() time.Time { return now }
	var svcs []*Service
	for range 2 {
		s, err := New(Options{Spend: st, Now: clk})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(Key{"/team", Daily}, 1, false); err != nil {
			t.Fatal(err)
		}
		svcs = append(svcs, s)
	}
	svcs[0].Charge("/team", 0.75, now)
	svcs[1].Charge("/team", 0.25, now)
	for i, s := range svcs {
		if ok, _, _ := s.Check("/team", now); ok {
			t.Fatalf("service %d admitted at $1 of $1", i)
		}
		es := s.List()
		if len(es) != 1 || es[0].Spent != 1 {
			t.Fatalf("service %d lists %+v", i, es)
		}
	}
	if _, err := svcs[1].ResetOne(Key{"/team", Daily}); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := svcs[0].Check("/team", now); !ok {
		t.Fatal("refused after the other service reset the budget")
	}
}

func TestServiceResyncsAStoreThatRestartedEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		src := &snapSource{}
		s, err := New(Options{Spend: st, Source: src, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(Key{"/team", Daily}, 1, false); err != nil {
			t.Fatal(err)
		}
		s.ChargeFor("/team", reqID(1), 0.5, now)
		src.commit(reqID(1), "/team", 0.5)
		st.down.Store(true)
		s.ChargeFor("/team", reqID(2), 0.3, now) // owed to the store
		src.commit(reqID(2), "/team", 0.3)       // and in the usage records
		// The server comes back without its data.
		st.mu.Lock()
		st.win = map[SpendWindow]map[string]float64{}
		st.mu.Unlock()
		st.down.Store(false)
		s.tr.sh.downUntil.Store(0)
		s.Check("/team", now) // answers: the tracker resyncs in the background
		waitOwed(t, s.tr)
		got, err := s.tr.Spent(Key{"/team", Daily}, "/team", now)
		if err != nil || got < 0.7999 || got > 0.8001 {
			t.Fatalf("store holds %v after the resync, want 0.80 (%v)", got, err)
		}
	})
}

func TestSharedSpendConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		a, b := sharedPair(t, st, now,
			Budget{UserPath: "/", Period: Daily, Amount: 1e9},
			Budget{UserPath: "/customers", Period: Hourly, Amount: 1e9, PerChild: true})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := a
				if i%2 == 1 {
					tr = b
				}
				for j := range 200 {
					p := "/customers/c" + string(rune('a'+j%5))
					tr.Charge(p, 0.01, now)
					tr.Check(p, now)
					if j%50 == 0 {
						if j%100 == 0 {
							st.down.Store(i == 0)
						}
						tr.List(now)
						tr.Sweep(now)
					}
				}
			}()
		}
		wg.Wait()
		st.down.Store(false)
		for _, tr := range []*Tracker{a, b} {
			tr.sh.downUntil.Store(0)
			tr.Charge("/x", 0.01, now)
			waitOwed(t, tr)
		}
		got, _ := a.Spent(Key{"/", Daily}, "/", now)
		if got < 16.0199 || got > 16.0201 {
			t.Fatalf("root spent %v after 1,600 charges of 0.01 and 2 more, want 16.02 (none lost while the store failed now and then)", got)
		}
	})
}

func TestSharedSpendProbesADownStoreOnce(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	a, _ := sharedPair(t, st, now, Budget{UserPath: "/team", Period: Daily, Amount: 1})
	st.down.Store(true)
	a.Check("/team", now)
	a.sh.downUntil.Store(1) // the pause is over
	n := st.calls.Load()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Check("/team", now)
		}()
	}
	wg.Wait()
	if got := st.calls.Load() - n; got != 1 {
		t.Fatalf("%d store calls from 50 requests after the pause, want 1 probe", got)
	}
}

func TestSharedListIsOneStoreCall(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	st := newMemSpend()
	var list []Budget
	for i := range 20 {
		list = append(list, Budget{UserPath: "/t" + string(rune('a'+i)), Period: Daily, Amount: 1})
	}
	a, b := sharedPair(t, st, now, list...)
	b.Charge("/tc/app", 0.25, now)
	n := st.calls.Load()
	es := a.List(now)
	if got := st.calls.Load() - n; got != 1 {
		t.Fatalf("%d store calls to list 20 budgets, want 1", got)
	}
	if len(es) != 20 || es[2].UserPath != "/tc" || es[2].Spent != 0.25 {
		t.Fatalf("list %+v", es[2])
	}
}

// resvCell names a cell's reservations, whatever the window.
func resvCell(c SpendCell) SpendCell {
	return SpendCell{Window: SpendWindow{Budget: c.Window.Budget, PerChild: c.Window.PerChild}, Child: c.Child}
}

func (m *memSpend) Reserve(_ context.Context, cells []SpendCell, limits []catalog.Nanos, id string, amount catalog.Nanos, _ time.Duration) ([]int, error) {
	if err := m.charging(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.resv == nil {
		m.resv = map[SpendCell]map[string]catalog.Nanos{}
	}
	var refused []int
	for i, c := range cells {
		spent := catalog.NanosOf(m.win[c.Window][c.Child])
		held := catalog.Nanos(0)
		for _, a := range m.resv[resvCell(c)] {
			held += a
		}
		if spent >= limits[i] || spent+held+amount > limits[i] {
			refused = append(refused, i)
		}
	}
	if len(refused) > 0 {
		return refused, nil
	}
	for _, c := range cells {
		k := resvCell(c)
		if m.resv[k] == nil {
			m.resv[k] = map[string]catalog.Nanos{}
		}
		m.resv[k][id] = amount
	}
	return nil, nil
}

func (m *memSpend) Settle(_ context.Context, cells []SpendCell, id string, costs []float64) ([]float64, error) {
	if err := m.charging(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]float64, len(cells))
	for i, c := range cells {
		delete(m.resv[resvCell(c)], id)
		w := m.win[c.Window]
		if w == nil {
			w = map[string]float64{}
			m.win[c.Window] = w
		}
		w[c.Child] += costs[i]
		out[i] = w[c.Child]
	}
	return out, nil
}

// held is the sum of the reservations the store holds.
func (m *memSpend) held() catalog.Nanos {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n catalog.Nanos
	for _, r := range m.resv {
		for _, a := range r {
			n += a
		}
	}
	return n
}
