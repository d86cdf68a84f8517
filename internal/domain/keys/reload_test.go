package keys

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// failingLoad is a Backend whose Load fails.
type failingLoad struct{ *memBackend }

func (failingLoad) Load(func(k, v []byte) error) error { return errors.New("storage down") }

func TestReloadTakesInChangesMadeByAnotherService(t *testing.T) {
	c := newClock()
	shared := newMem()
	one, two := mustOpen(t, shared, c), mustOpen(t, shared, c)

	k, secret := mustCreate(t, one, NewKey{Name: "ci"})
	if two.Authenticate(secret).Found {
		t.Fatal("the other service knew the key before reloading")
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if m := two.Authenticate(secret); m.State != StateActive || m.ID != k.ID {
		t.Fatalf("after reload: %+v", m)
	}
	if two.Count() != 1 {
		t.Fatalf("count %d", two.Count())
	}

	name := "renamed"
	if _, err := one.Update(k.ID, Changes{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := one.Deactivate(k.ID); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if m := two.Authenticate(secret); m.State != StateDeactivated {
		t.Fatalf("revoked elsewhere, yet %+v", m)
	}
	if got, _ := two.Get(k.ID); got.Name != "renamed" {
		t.Fatalf("name %q", got.Name)
	}

	if err := one.Delete(k.ID); err != nil {
		t.Fatal(err)
	}
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	if two.Authenticate(secret).Found || two.Count() != 0 {
		t.Fatal("deleted elsewhere, yet still known")
	}
	if _, err := two.Get(k.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
}

func TestReloadKeepsLastUsedTimes(t *testing.T) {
	c := newClock()
	shared := newMem()
	one := mustOpen(t, shared, c)
	k, secret := mustCreate(t, one, NewKey{Name: "ci"})
	two := mustOpen(t, shared, c)

	c.Add(10 * time.Second)
	two.Authenticate(secret) // in memory only at two: persisted a minute later
	usedAtTwo := c.Now()
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	got, _ := two.Get(k.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(usedAtTwo) {
		t.Fatalf("last used %v, want the in-memory %v", got.LastUsedAt, usedAtTwo)
	}

	// A later use persisted by the other service is taken.
	c.Add(2 * time.Minute)
	one.Authenticate(secret)
	usedAtOne := c.Now()
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	got, _ = two.Get(k.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(usedAtOne) {
		t.Fatalf("last used %v, want the stored %v", got.LastUsedAt, usedAtOne)
	}
}

func TestReloadFailureKeepsKeys(t *testing.T) {
	c := newClock()
	m := newMem()
	s := mustOpen(t, m, c)
	_, secret := mustCreate(t, s, NewKey{Name: "ci"})
	s.backend = failingLoad{m}
	if err := s.Reload(); err == nil {
		t.Fatal("a failed load was not reported")
	}
	if s.Authenticate(secret).State != StateActive {
		t.Fatal("a failed reload lost the keys")
	}
}

func TestReloadSkipsUnreadableRecords(t *testing.T) {
	c := newClock()
	m := newMem()
	s := mustOpen(t, m, c)
	_, secret := mustCreate(t, s, NewKey{Name: "ci"})
	_ = m.Put(recordKey("broken"), []byte("{"))
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if s.Count() != 1 || s.Authenticate(secret).State != StateActive {
		t.Fatalf("count %d", s.Count())
	}
}

func TestReloadRacesLookupsAndWrites(t *testing.T) {
	c := newClock()
	shared := newMem()
	one, two := mustOpen(t, shared, c), mustOpen(t, shared, c)
	_, secret := mustCreate(t, one, NewKey{Name: "ci"})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(3)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				two.Authenticate(secret)
				two.List()
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			mustCreate(t, two, NewKey{Name: "local"})
		}
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			if err := two.Reload(); err != nil {
				t.Error(err)
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	if err := two.Reload(); err != nil {
		t.Fatal(err)
	}
	// Keys written locally during reloads are all kept (they are stored).
	if two.Count() != 51 {
		t.Fatalf("count %d, want 51", two.Count())
	}
}
