package budgets

import (
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// snapSource is a SnapshotSource over usage records committed in order:
// snapshot "n" holds the first n records.
type snapSource struct {
	mu   sync.Mutex
	recs []snapRecord
}

type snapRecord struct {
	id   RequestID
	path string
	cost catalog.Nanos
}

func (f *snapSource) commit(id RequestID, path string, cost float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recs = append(f.recs, snapRecord{id, path, catalog.NanosOf(cost)})
}

func (f *snapSource) total(prefix string) catalog.Nanos {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n catalog.Nanos
	for _, r := range f.recs {
		if userpath.Covers(prefix, r.path) {
			n += r.cost
		}
	}
	return n
}

func (f *snapSource) SpendSince(prefix string, perChild bool, since time.Time) (map[string]float64, error) {
	got, _, err := f.SpendSnapshot(prefix, perChild, since)
	return got, err
}

func (f *snapSource) SpendSnapshot(prefix string, perChild bool, _ time.Time) (map[string]float64, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sums := map[string]catalog.Nanos{}
	for _, r := range f.recs {
		if !perChild && userpath.Covers(prefix, r.path) {
			sums[prefix] += r.cost
		} else if c, ok := ChildOf(prefix, r.path); perChild && ok {
			sums[c] += r.cost
		}
	}
	out := map[string]float64{}
	for k, v := range sums {
		out[k] = v.Float()
	}
	return out, strconv.Itoa(len(f.recs)), nil
}

func (f *snapSource) Counted(ids []RequestID, snapshot string) ([]RequestID, error) {
	n, err := strconv.Atoi(snapshot)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	in := map[RequestID]bool{}
	for _, r := range f.recs[:n] {
		in[r.id] = true
	}
	var out []RequestID
	for _, id := range ids {
		if in[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// reqID is a test request id.
func reqID(i int) RequestID {
	var id RequestID
	id[0], id[1], id[15] = byte(i>>8), byte(i), 1
	return id
}

// TestHandOverCountsEveryRequestOnce: two processes charge while the
// store is down (kept as debts), the store returns empty and is rebuilt
// from the usage records by one of them, found by its probe; the debts
// whose usage record the rebuild counted are dropped, the one whose
// record was written after it is added. The store then holds exactly
// the records' sum, also after the same outage a second time.
func TestHandOverCountsEveryRequestOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		st.lost = true // a new server: the first process seeds it
		src := &snapSource{}
		var svcs []*Service
		for range 2 {
			s, err := New(Options{Spend: st, Source: src, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(Key{"/team", Daily}, 100, false); err != nil {
				t.Fatal(err)
			}
			svcs = append(svcs, s)
		}
		p1, p2 := svcs[0], svcs[1]
		next := 0
		// serve charges cost at p as the gateway does: the budget first,
		// then the usage record (unless late, whose record is written
		// after the rebuild).
		var late []snapRecord
		serve := func(p *Service, cost float64, lateRecord bool) {
			next++
			id := reqID(next)
			p.ChargeFor("/team/a", id, cost, now)
			if lateRecord {
				late = append(late, snapRecord{id, "/team/a", catalog.NanosOf(cost)})
				return
			}
			src.commit(id, "/team/a", cost)
		}
		want := func(when string) {
			t.Helper()
			for i, p := range svcs {
				p.tr.refresh(p.tr.snap.Load().list, now)
				got, err := p.tr.Spent(Key{"/team", Daily}, "/team", now)
				if err != nil {
					t.Fatal(err)
				}
				if w := src.total("/team"); catalog.NanosOf(got) != w {
					t.Fatalf("%s: process %d's budget reads %v spent, the usage records sum to %v", when, i+1, catalog.NanosOf(got), w)
				}
			}
		}
		serve(p1, 0.005, false)
		serve(p2, 0.003, false)
		want("before the outage")
		for outage := 1; outage <= 2; outage++ {
			st.down.Store(true)
			serve(p1, 0.005, false)
			serve(p2, 0.005, false)
			serve(p2, 0.005, false)
			serve(p2, 0.001, true)
			st.wipe()
			st.down.Store(false)
			time.Sleep(spendRetry) // the pause after the failure
			p1.Probe()             // finds the store empty: rebuilds it
			synctest.Wait()
			for _, r := range late {
				src.mu.Lock()
				src.recs = append(src.recs, r)
				src.mu.Unlock()
			}
			late = nil
			p2.Probe() // hands its debts over
			synctest.Wait()
			waitOwed(t, p1.tr)
			waitOwed(t, p2.tr)
			want("after outage " + strconv.Itoa(outage))
		}
	})
}

// TestDebtsPastTheBoundAreMerged: past maxDebts a charge is kept without
// its request, and is handed over in full.
func TestDebtsPastTheBoundAreMerged(t *testing.T) {
	sh := &shared{debts: map[SpendCell][]debt{}, merged: map[SpendCell]catalog.Nanos{}, clears: map[SpendWindow]struct{}{}}
	c := SpendCell{Window: SpendWindow{Budget: Key{"/t", Daily}}}
	for i := range maxDebts + 10 {
		sh.owe([]SpendCell{c}, reqID(i+1), 0.001)
	}
	if sh.ndebts != maxDebts || sh.nmerged != 10 || sh.merged[c] != catalog.NanosOf(0.01) {
		t.Fatalf("kept %d debts, merged %d (%v), want %d and 10 ($0.01)", sh.ndebts, sh.nmerged, sh.merged[c], maxDebts)
	}
}

// failingCounted is a snapSource whose Counted fails while fail is set.
type failingCounted struct {
	*snapSource
	fail bool
}

func (f *failingCounted) Counted(ids []RequestID, snapshot string) ([]RequestID, error) {
	if f.fail {
		return nil, errDown
	}
	return f.snapSource.Counted(ids, snapshot)
}

// TestHandOverWaitsForTheRecords: when the usage records cannot be read
// at hand-over, the charges stay kept (the store is not taken for down)
// and are handed over, once, when they can.
func TestHandOverWaitsForTheRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		st := newMemSpend()
		src := &failingCounted{snapSource: &snapSource{}}
		s, err := New(Options{Spend: st, Source: src, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(Key{"/team", Daily}, 100, false); err != nil {
			t.Fatal(err)
		}
		s.Probe() // a new store: seeded and restored
		st.down.Store(true)
		s.ChargeFor("/team", reqID(1), 0.5, now)
		src.commit(reqID(1), "/team", 0.5)
		s.ChargeFor("/team", reqID(2), 0.25, now) // its record is written later
		st.wipe()
		st.down.Store(false)
		src.fail = true
		time.Sleep(spendRetry)
		s.Probe()
		synctest.Wait()
		src.commit(reqID(2), "/team", 0.25)
		if s.tr.sh.owed.Load() == 0 {
			t.Fatal("the charges were dropped while the usage records could not be read")
		}
		if s.tr.sh.downUntil.Load() != 0 {
			t.Fatal("the store was taken for down because the usage records could not be read")
		}
		src.fail = false
		time.Sleep(spendRetry)
		s.Probe()
		synctest.Wait()
		waitOwed(t, s.tr)
		s.tr.refresh(s.tr.snap.Load().list, now)
		if got, _ := s.tr.Spent(Key{"/team", Daily}, "/team", now); catalog.NanosOf(got) != catalog.NanosOf(0.75) {
			t.Fatalf("spent %v, want 0.75", got)
		}
	})
}
