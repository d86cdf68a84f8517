package keys

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

func TestCreateAndAuthenticate(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	k, secret := mustCreate(t, s, NewKey{Name: " ci ", UserPath: "team/alpha/", DashboardAccess: true})
	if !LooksManaged(secret) || len(secret) != KeyLen {
		t.Fatalf("key %q has the wrong format", secret)
	}
	if k.Name != "ci" || k.UserPath != "/team/alpha" || !k.DashboardAccess || !k.Enabled || k.State != StateActive {
		t.Fatalf("created %+v", k)
	}
	if k.Prefix != secret[:ShownPrefixLen] || !strings.HasPrefix(k.ID, "key_") || k.LastUsedAt != nil {
		t.Fatalf("created %+v", k)
	}
	m := s.Authenticate(secret)
	if !m.Found || m.State != StateActive || m.ID != k.ID || m.UserPath != "/team/alpha" || !m.DashboardAccess {
		t.Fatalf("lookup %+v", m)
	}
	if got, _ := s.Get(k.ID); got.LastUsedAt == nil || !got.LastUsedAt.Equal(c.Now()) {
		t.Fatalf("last used not recorded: %+v", got.LastUsedAt)
	}
	for _, bad := range []string{"", secret[:len(secret)-1], secret + "x", strings.ToUpper(secret), "sk_mg_" + strings.Repeat("0", 32)} {
		if m := s.Authenticate(bad); m.Found {
			t.Fatalf("%q matched", bad)
		}
	}
	if s.Count() != 1 {
		t.Fatalf("count %d", s.Count())
	}
}

func TestSecretsNeverListed(t *testing.T) {
	s := mustOpen(t, newMem(), newClock())
	_, secret := mustCreate(t, s, NewKey{Name: "a"})
	_, secret2 := mustCreate(t, s, NewKey{Name: "b"})
	body, err := json.Marshal(s.List())
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, secret2, secret[ShownPrefixLen:], `"hash"`} {
		if strings.Contains(string(body), leak) {
			t.Fatalf("list leaks %q: %s", leak, body)
		}
	}
}

func TestRandomness(t *testing.T) {
	s := mustOpen(t, newMem(), newClock())
	seen := map[string]bool{}
	counts := map[byte]int{}
	for range 200 {
		_, secret := mustCreate(t, s, NewKey{Name: "n"})
		if seen[secret] {
			t.Fatal("duplicate key")
		}
		seen[secret] = true
		for i := len(KeyPrefix); i < len(secret); i++ {
			counts[secret[i]]++
		}
	}
	if len(counts) != 62 {
		t.Fatalf("only %d of 62 characters used in 6400 draws", len(counts))
	}
}

func TestStates(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	exp := c.Now().Add(time.Hour)
	k, secret := mustCreate(t, s, NewKey{Name: "temp", ExpiresAt: &exp})
	if m := s.Authenticate(secret); m.State != StateActive {
		t.Fatalf("before expiry: %+v", m)
	}
	c.Add(time.Hour)
	if m := s.Authenticate(secret); !m.Found || m.State != StateExpired {
		t.Fatalf("at expiry: %+v", m)
	}
	if got, _ := s.Get(k.ID); got.State != StateExpired || !got.Enabled {
		t.Fatalf("expired view %+v", got)
	}

	k2, secret2 := mustCreate(t, s, NewKey{Name: "off"})
	off, err := s.Deactivate(k2.ID)
	if err != nil || off.Enabled || off.State != StateDeactivated || off.DeactivatedAt == nil {
		t.Fatalf("deactivate: %+v %v", off, err)
	}
	if m := s.Authenticate(secret2); !m.Found || m.State != StateDeactivated {
		t.Fatalf("deactivated key: %+v", m)
	}
	again, err := s.Deactivate(k2.ID)
	if err != nil || !again.UpdatedAt.Equal(off.UpdatedAt) {
		t.Fatalf("second deactivate changed the key: %+v %v", again, err)
	}
	on, err := s.Update(k2.ID, Changes{Enabled: new(true)})
	if err != nil || !on.Enabled || on.DeactivatedAt != nil || on.State != StateActive {
		t.Fatalf("re-enable: %+v %v", on, err)
	}
	if m := s.Authenticate(secret2); m.State != StateActive {
		t.Fatalf("re-enabled key: %+v", m)
	}
}

func TestUpdateIsPartial(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	k, secret := mustCreate(t, s, NewKey{Name: "orig", Description: "d", UserPath: "/a"})
	c.Add(time.Second)
	got, err := s.Update(k.ID, Changes{DashboardAccess: new(true)})
	if err != nil || got.Name != "orig" || got.Description != "d" || got.UserPath != "/a" || !got.DashboardAccess {
		t.Fatalf("grant: %+v %v", got, err)
	}
	if !got.UpdatedAt.After(k.UpdatedAt) || !got.CreatedAt.Equal(k.CreatedAt) {
		t.Fatalf("times: %+v", got)
	}
	if m := s.Authenticate(secret); !m.DashboardAccess {
		t.Fatal("grant not effective")
	}
	got, err = s.Update(k.ID, Changes{DashboardAccess: new(false), Name: new("renamed"), UserPath: new("/b/c")})
	if err != nil || got.DashboardAccess || got.Name != "renamed" || got.UserPath != "/b/c" {
		t.Fatalf("revoke: %+v %v", got, err)
	}
	if m := s.Authenticate(secret); m.DashboardAccess || m.UserPath != "/b/c" {
		t.Fatalf("revoke not effective: %+v", m)
	}
	if got, err = s.Update(k.ID, Changes{UserPath: new("")}); err != nil || got.UserPath != "" {
		t.Fatalf("unbind: %+v %v", got, err)
	}
	if _, err := s.Update("key_nope", Changes{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	// The expiry time is set, refused in the past, and removed.
	soon := c.Now().Add(time.Hour)
	if got, err = s.Update(k.ID, Changes{ExpiresAt: &soon}); err != nil || got.ExpiresAt == nil || !got.ExpiresAt.Equal(soon) || got.Name != "renamed" {
		t.Fatalf("expiry: %+v %v", got, err)
	}
	past := c.Now().Add(-time.Second)
	var ie *apierr.FieldError
	if _, err = s.Update(k.ID, Changes{ExpiresAt: &past}); !errors.As(err, &ie) || ie.Field != "expires_at" {
		t.Fatalf("past expiry: %v", err)
	}
	c.Add(2 * time.Hour)
	if m := s.Authenticate(secret); m.State != StateExpired {
		t.Fatalf("expired key: %+v", m)
	}
	if got, err = s.Update(k.ID, Changes{NeverExpires: true}); err != nil || got.ExpiresAt != nil {
		t.Fatalf("never expires: %+v %v", got, err)
	}
	if m := s.Authenticate(secret); m.State != StateActive {
		t.Fatalf("key without expiry: %+v", m)
	}
}

func TestValidation(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	past := c.Now().Add(-time.Second)
	cases := []struct {
		in    NewKey
		field string
	}{
		{NewKey{Name: "  "}, "name"},
		{NewKey{Name: strings.Repeat("n", MaxNameLen+1)}, "name"},
		{NewKey{Name: "a\x00b"}, "name"},
		{NewKey{Name: "ok", Description: strings.Repeat("d", MaxDescriptionLen+1)}, "description"},
		{NewKey{Name: "ok", UserPath: "/a/../b"}, "user_path"},
		{NewKey{Name: "ok", UserPath: "/a//b"}, "user_path"},
		{NewKey{Name: "ok", ExpiresAt: &past}, "expires_at"},
	}
	for _, tc := range cases {
		_, _, err := s.Create(tc.in)
		var ie *apierr.FieldError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("Create(%+v) = %v, want an error on %s", tc.in, err, tc.field)
		}
	}
	k, _ := mustCreate(t, s, NewKey{Name: "ok"})
	var ie *apierr.FieldError
	if _, err := s.Update(k.ID, Changes{UserPath: new("/x/./y")}); !errors.As(err, &ie) || ie.Field != "user_path" {
		t.Fatalf("update user_path: %v", err)
	}
	if _, err := s.Update(k.ID, Changes{Name: new("")}); !errors.As(err, &ie) || ie.Field != "name" {
		t.Fatalf("update name: %v", err)
	}
	if s.Count() != 1 {
		t.Fatalf("rejected creates were stored: %d", s.Count())
	}
}

func TestDelete(t *testing.T) {
	m := newMem()
	s := mustOpen(t, m, newClock())
	k, secret := mustCreate(t, s, NewKey{Name: "gone"})
	s.Authenticate(secret)
	if err := s.Delete(k.ID); err != nil {
		t.Fatal(err)
	}
	if s.Authenticate(secret).Found || s.Count() != 0 || len(s.List()) != 0 {
		t.Fatal("deleted key still there")
	}
	if err := s.Delete(k.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	// A last-used write that lands after the delete does not bring the
	// key back, and is cleaned up at the next load.
	_ = m.PutLater(lastUsedKey(k.ID), encodeNanos(1))
	s2 := mustOpen(t, m, newClock())
	if s2.Count() != 0 || s2.Authenticate(secret).Found {
		t.Fatal("deleted key came back")
	}
	if _, ok := m.data[string(lastUsedKey(k.ID))]; ok {
		t.Fatal("orphan last-used entry kept")
	}
}

func TestLastUsedThrottled(t *testing.T) {
	c := newClock()
	m := newMem()
	s := mustOpen(t, m, c)
	k, secret := mustCreate(t, s, NewKey{Name: "busy"})
	for range 100 {
		s.Authenticate(secret)
		c.Add(100 * time.Millisecond) // 10 s in all
	}
	if n := m.laterCount(); n != 1 {
		t.Fatalf("%d queued last-used writes in 10s, want 1", n)
	}
	c.Add(time.Minute)
	s.Authenticate(secret)
	if n := m.laterCount(); n != 2 {
		t.Fatalf("%d queued writes after a minute, want 2", n)
	}
	// Refused by a full queue: retried on the next use.
	m.refuse = true
	c.Add(time.Minute)
	s.Authenticate(secret)
	m.refuse = false
	c.Add(time.Second)
	s.Authenticate(secret)
	if n := m.laterCount(); n != 3 {
		t.Fatalf("%d queued writes after a refusal, want 3", n)
	}
	// Expired and deactivated keys record no use.
	if _, err := s.Deactivate(k.ID); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Get(k.ID)
	c.Add(time.Hour)
	s.Authenticate(secret)
	if after, _ := s.Get(k.ID); !after.LastUsedAt.Equal(*before.LastUsedAt) {
		t.Fatal("a deactivated key's use was recorded")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustOpen(t, newMem(), newClock())
	k, secret := mustCreate(t, s, NewKey{Name: "race"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				s.Authenticate(secret)
				if i == 0 && j%20 == 0 {
					if _, err := s.Update(k.ID, Changes{DashboardAccess: new(j%40 == 0)}); err != nil {
						t.Error(err)
					}
				}
				if i == 1 && j%50 == 0 {
					s.List()
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkAuthenticateManaged(b *testing.B) {
	s, err := Open(newMem(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	_, secret, err := s.Create(NewKey{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	a := NewAuthenticator("master")
	a.UseKeys(s)
	b.ReportAllocs()
	for b.Loop() {
		if !a.Authenticate(secret).OK {
			b.Fatal("refused")
		}
	}
}

// TestEnableExpired: an expired key cannot be enabled again, deactivated
// or not; the refused update changes nothing.
func TestEnableExpired(t *testing.T) {
	c := newClock()
	s := mustOpen(t, newMem(), c)
	exp := c.Now().Add(time.Hour)
	k, _ := mustCreate(t, s, NewKey{Name: "temp", ExpiresAt: &exp})
	c.Add(time.Hour)
	before, _ := s.Get(k.ID)
	if _, err := s.Update(k.ID, Changes{Enabled: new(true), Name: new("x")}); !errors.Is(err, ErrExpiredEnable) {
		t.Fatalf("enable expired: %v", err)
	}
	if got, _ := s.Get(k.ID); got != before {
		t.Fatalf("refused update changed %+v into %+v", before, got)
	}
	if _, err := s.Deactivate(k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(k.ID, Changes{Enabled: new(true)}); !errors.Is(err, ErrExpiredEnable) {
		t.Fatalf("enable expired and deactivated: %v", err)
	}
}
