package limits

import (
	"context"
	"errors"
	"maps"
	"sync"
)

// memStore is an in-memory RuleStore and CounterStore with the timing of
// the embedded store: rule writes, markers and deletions apply at once,
// while queued snapshots and deletions wait in a queue until Flush (or the
// next load), so a snapshot queued before a reset can land after the
// reset's marker, as it can on disk.
type memStore struct {
	mu      sync.Mutex
	rules   map[Key]Rule
	skipped []error // reported by LoadRules
	records map[CounterID]Snapshot
	markers map[Key]uint64
	floor   uint64
	queue   []memOp
	full    bool // QueueSnapshot and QueueDelete refuse
	queued  int  // snapshots accepted so far
}

// memOp is one queued write: a snapshot, or a deletion when del is set.
type memOp struct {
	id  CounterID
	s   Snapshot
	del bool
}

func newMemStore() *memStore {
	return &memStore{rules: map[Key]Rule{}, records: map[CounterID]Snapshot{}, markers: map[Key]uint64{}}
}

// applyLocked commits the queue. Caller holds mu.
func (m *memStore) applyLocked() {
	for _, op := range m.queue {
		if op.del {
			delete(m.records, op.id)
		} else {
			m.records[op.id] = op.s
		}
	}
	m.queue = nil
}

func (m *memStore) LoadRules() ([]Rule, []error, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Rule
	for _, r := range m.rules {
		out = append(out, r)
	}
	return out, m.skipped, nil
}

func (m *memStore) ReplaceRule(put *Rule, del *Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if del != nil {
		delete(m.rules, del.Normalize())
	}
	if put != nil {
		m.rules[put.Key()] = *put
	}
	return nil
}

func (m *memStore) LoadCounters() (StoredCounters, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.applyLocked()
	out := StoredCounters{Markers: maps.Clone(m.markers), Floor: m.floor}
	for id, s := range m.records {
		out.Records = append(out.Records, CounterRecord{CounterID: id, Snapshot: s})
	}
	return out, nil
}

func (m *memStore) QueueSnapshot(rec CounterRecord) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.full {
		return false
	}
	m.queued++
	m.queue = append(m.queue, memOp{id: rec.CounterID, s: rec.Snapshot})
	return true
}

func (m *memStore) QueueDelete(id CounterID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.full {
		return false
	}
	m.queue = append(m.queue, memOp{id: id, del: true})
	return true
}

func (m *memStore) DeleteCounters(ids []CounterID) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		delete(m.records, id)
	}
	return nil
}

func (m *memStore) MarkReset(rules []Key, gen uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range rules {
		m.markers[k] = max(m.markers[k], gen)
		for id := range m.records {
			if id.Rule == k {
				delete(m.records, id)
			}
		}
	}
	return nil
}

func (m *memStore) MarkResetAll(gen uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.floor = max(m.floor, gen)
	clear(m.records)
	return nil
}

func (m *memStore) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.full {
		return errors.New("memStore: queue stuck")
	}
	m.applyLocked()
	return nil
}

// record returns the committed snapshot of id.
func (m *memStore) record(id CounterID) (Snapshot, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.records[id]
	return s, ok
}
