package audit

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestIDTextIsSortableAndRoundTrips(t *testing.T) {
	g := NewIDGenerator()
	at := time.Date(2026, 3, 30, 12, 0, 0, 123_000_000, time.UTC)
	var made []string
	for i := range 2000 {
		id := g.New(at.Add(time.Duration(i/500) * time.Millisecond)) // 500 ids per millisecond
		s := id.String()
		if len(s) != IDLen || strings.ToUpper(s) != s {
			t.Fatalf("id %q: want 26 upper-case characters", s)
		}
		back, err := ParseID(s)
		if err != nil || back != id {
			t.Fatalf("ParseID(%q) = %v, %v", s, back, err)
		}
		if lower, err := ParseID(strings.ToLower(s)); err != nil || lower != id {
			t.Fatalf("lower case %q: %v", s, err)
		}
		if !id.Time().Equal(at.Add(time.Duration(i/500) * time.Millisecond)) {
			t.Fatalf("id time %v", id.Time())
		}
		made = append(made, s)
	}
	if !sort.StringsAreSorted(made) {
		t.Fatal("ids made in order, within and across milliseconds, do not sort in order")
	}
	// An id for an earlier time sorts before those already made.
	if early := g.New(at.Add(-time.Second)).String(); early >= made[0] {
		t.Fatalf("earlier id %s sorts after %s", early, made[0])
	}
	if m := MinID(at); m.String() > made[0] || m.Time() != at {
		t.Fatalf("MinID %s is not the smallest id of its millisecond", m)
	}
}

func TestIDsAreUniqueAcrossGoroutines(t *testing.T) {
	at := time.Now()
	var mu sync.Mutex
	seen := map[ID]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				id := NewID(at)
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate id %s", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestParseIDRejectsBadText(t *testing.T) {
	for _, s := range []string{"", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAVX", "01ARZ3NDEKTSV4RRFFQ69G5FAU",
		"81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FA!"} {
		if _, err := ParseID(s); err == nil {
			t.Errorf("ParseID(%q) accepted", s)
		}
	}
	if _, err := ParseID("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"); err != nil {
		t.Errorf("largest id rejected: %v", err)
	}
}

func TestIDJSON(t *testing.T) {
	id := NewID(time.Now())
	b, err := json.Marshal(struct {
		ID   ID `json:"id"`
		None ID `json:"none"`
	}{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"` + id.String() + `","none":""}`; string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
	var back struct {
		ID   ID `json:"id"`
		None ID `json:"none"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.ID != id || !back.None.IsZero() {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"id":"nope"}`), &back); err == nil {
		t.Fatal("bad id decoded")
	}
}

func BenchmarkNewID(b *testing.B) {
	g := NewIDGenerator()
	now := time.Now()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = g.New(now)
	}
}

func BenchmarkNewIDParallel(b *testing.B) {
	g := NewIDGenerator()
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = g.New(now)
		}
	})
}

func BenchmarkIDString(b *testing.B) {
	id := NewID(time.Now())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = id.String()
	}
}
