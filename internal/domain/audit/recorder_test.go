package audit

import (
	"testing"
	"time"
)

func TestRecorderWritesPublishesAndCountsDrops(t *testing.T) {
	st := &fakeStorage{accept: true}
	hub := NewHub(16)
	r := NewRecorder(st, st, hub)
	at := time.Date(2026, 3, 30, 10, 0, 0, 0, time.UTC)
	e := &Entry{Timestamp: at, Path: "/v1/chat/completions"}
	r.Start(e)
	if e.ID.IsZero() || !e.ID.Time().Equal(at) {
		t.Fatalf("Start gave id %s", e.ID)
	}
	id := e.ID
	e.StatusCode = 200
	u := &UsageRecord{Timestamp: at, Model: "m"}
	r.Finish(e, u)
	if e.ID != id || u.ID.IsZero() || u.RequestID != id {
		t.Fatalf("ids: entry %s (was %s), usage %s for %s", e.ID, id, u.ID, u.RequestID)
	}
	if len(st.entries) != 1 || len(st.usage) != 1 {
		t.Fatalf("stored %d entries, %d usage records", len(st.entries), len(st.usage))
	}
	sub, _ := hub.Subscribe(0, true)
	evs, _ := sub.Read(nil)
	if len(evs) != 3 || evs[0].Audit.Phase != PhaseStart || evs[1].Audit.Phase != PhaseComplete ||
		evs[1].Audit.StatusCode != 200 || evs[2].Kind != EventUsage || evs[2].Usage.RequestID != id {
		t.Fatalf("live events %+v", evs)
	}

	st.accept = false
	r.Finish(&Entry{Timestamp: at}, &UsageRecord{Timestamp: at})
	r.Finish(&Entry{Timestamp: at}, nil)
	if de, du := r.Dropped(); de != 2 || du != 1 {
		t.Fatalf("dropped %d entries, %d usage records", de, du)
	}
}

func TestRecorderPartsOff(t *testing.T) {
	st := &fakeStorage{accept: true}
	hub := NewHub(4)
	// Logging off, usage on: no entry and no audit preview, usage kept.
	r := NewRecorder(nil, st, hub)
	e := &Entry{Timestamp: time.Now()}
	r.Start(e)
	r.Finish(e, &UsageRecord{Timestamp: time.Now()})
	if len(st.entries) != 0 || len(st.usage) != 1 {
		t.Fatalf("stored %d entries, %d usage", len(st.entries), len(st.usage))
	}
	sub, _ := hub.Subscribe(0, true)
	if evs, _ := sub.Read(nil); len(evs) != 1 || evs[0].Kind != EventUsage {
		t.Fatalf("events %+v", evs)
	}
	// Nothing at all: no panic, nothing dropped.
	r = NewRecorder(nil, nil, nil)
	r.Start(e)
	r.Finish(e, &UsageRecord{})
	if de, du := r.Dropped(); de != 0 || du != 0 {
		t.Fatal("drops counted with storage off")
	}
}
