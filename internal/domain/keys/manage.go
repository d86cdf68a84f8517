package keys

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// NewKey is a request to create a managed key.
type NewKey struct {
	// Name is a required human label.
	Name string
	// Description is optional free text.
	Description string
	// UserPath binds the key to a user path ("" for none).
	UserPath string
	// DashboardAccess lets the key use /admin/* (default false).
	DashboardAccess bool
	// ExpiresAt is when the key stops working; nil for never. It must be
	// in the future.
	ExpiresAt *time.Time
}

// Changes is a partial update of a managed key: nil fields are left as
// they are.
type Changes struct {
	// Name replaces the name.
	Name *string
	// UserPath replaces the bound user path; "" unbinds the key.
	UserPath *string
	// DashboardAccess grants or revokes dashboard access.
	DashboardAccess *bool
	// Enabled deactivates (false) or re-activates (true) the key. An
	// expired key cannot be re-activated (ErrExpiredEnable).
	Enabled *bool
	// ExpiresAt sets when the key stops working; it must be in the
	// future.
	ExpiresAt *time.Time
	// NeverExpires removes the key's expiry time (ExpiresAt wins over it).
	NeverExpires bool
}

// Create makes a new key, persists its record and returns its public view
// and the key itself. The key is returned only here; only its SHA-256 is
// stored.
func (s *Service) Create(in NewKey) (Key, string, error) {
	name, err := cleanName(in.Name)
	if err != nil {
		return Key{}, "", err
	}
	desc, err := cleanDescription(in.Description)
	if err != nil {
		return Key{}, "", err
	}
	path, err := cleanUserPath(in.UserPath)
	if err != nil {
		return Key{}, "", err
	}
	now := s.now().UTC()
	expires, err := checkExpiry(in.ExpiresAt, now)
	if err != nil {
		return Key{}, "", err
	}
	secret, err := newSecret()
	if err != nil {
		return Key{}, "", fmt.Errorf("keys: generating a key: %w", err)
	}
	id, err := newID()
	if err != nil {
		return Key{}, "", fmt.Errorf("keys: generating a key id: %w", err)
	}
	sum := sha256.Sum256([]byte(secret))
	e := &entry{hash: sum, rec: record{
		V: recordVersion, ID: id, Hash: hex.EncodeToString(sum[:]), Prefix: secret[:ShownPrefixLen],
		Name: name, Description: desc, UserPath: path, DashboardAccess: in.DashboardAccess,
		Enabled: true, CreatedAt: now, UpdatedAt: now, ExpiresAt: expires,
	}}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.persist(&e.rec); err != nil {
		return Key{}, "", err
	}
	s.mu.Lock()
	s.insert(e)
	s.mu.Unlock()
	return e.rec.view(now, 0), secret, nil
}

// List returns every key, newest first.
func (s *Service) List() []Key {
	now := s.now()
	s.mu.RLock()
	out := make([]Key, 0, len(s.byID))
	for _, e := range s.byID {
		out = append(out, e.rec.view(now, e.lastUsed.Load()))
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Get returns the key with the given id.
func (s *Service) Get(id string) (Key, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.byID[id]
	if e == nil {
		return Key{}, ErrNotFound
	}
	return e.rec.view(s.now(), e.lastUsed.Load()), nil
}

// Update applies c to the key with the given id, persists it and returns
// the new view. An empty Changes returns the key unchanged. Enabling a key
// past its expiry time changes nothing and returns ErrExpiredEnable; a new
// expiry time applies first, so moving it into the future and enabling
// the key in one change revives an expired key.
func (s *Service) Update(id string, c Changes) (Key, error) {
	var err error
	var name, path string
	if c.Name != nil {
		if name, err = cleanName(*c.Name); err != nil {
			return Key{}, err
		}
	}
	if c.UserPath != nil {
		if path, err = cleanUserPath(*c.UserPath); err != nil {
			return Key{}, err
		}
	}
	return s.change(id, func(r *record, now time.Time) error {
		if c.ExpiresAt != nil {
			expires, err := checkExpiry(c.ExpiresAt, now)
			if err != nil {
				return err
			}
			r.ExpiresAt = expires
		} else if c.NeverExpires {
			r.ExpiresAt = nil
		}
		if c.Enabled != nil && *c.Enabled && r.ExpiresAt != nil && !now.Before(*r.ExpiresAt) {
			return ErrExpiredEnable
		}
		if c.Name != nil {
			r.Name = name
		}
		if c.UserPath != nil {
			r.UserPath = path
		}
		if c.DashboardAccess != nil {
			r.DashboardAccess = *c.DashboardAccess
		}
		if c.Enabled != nil {
			setEnabled(r, *c.Enabled, now)
		}
		return nil
	})
}

// Deactivate switches the key off; it is refused from then on. Deactivating
// a deactivated key changes nothing.
func (s *Service) Deactivate(id string) (Key, error) {
	return s.change(id, func(r *record, now time.Time) error {
		setEnabled(r, false, now)
		return nil
	})
}

// Delete removes the key for good.
func (s *Service) Delete(id string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.RLock()
	e := s.byID[id]
	s.mu.RUnlock()
	if e == nil {
		return ErrNotFound
	}
	if err := s.backend.Delete(recordKey(id), lastUsedKey(id)); err != nil {
		return fmt.Errorf("keys: deleting key %s: %w", id, err)
	}
	s.mu.Lock()
	delete(s.byID, id)
	delete(s.byHash, e.hash)
	s.count.Store(int64(len(s.byID)))
	s.mu.Unlock()
	return nil
}

func setEnabled(r *record, on bool, now time.Time) {
	switch {
	case on && !r.Enabled:
		r.Enabled, r.DeactivatedAt = true, nil
	case !on && r.Enabled:
		r.Enabled, r.DeactivatedAt = false, &now
	}
}

// change copies the record of id, lets edit change the copy, and persists
// and installs it when it differs; an error from edit changes nothing.
func (s *Service) change(id string, edit func(r *record, now time.Time) error) (Key, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.RLock()
	e := s.byID[id]
	var rec record
	if e != nil {
		rec = e.rec
	}
	s.mu.RUnlock()
	if e == nil {
		return Key{}, ErrNotFound
	}
	now := s.now().UTC()
	before := rec
	if err := edit(&rec, now); err != nil {
		return Key{}, err
	}
	if rec != before {
		rec.UpdatedAt = now
		if err := s.persist(&rec); err != nil {
			return Key{}, err
		}
		s.mu.Lock()
		e.rec = rec
		s.mu.Unlock()
	}
	return rec.view(now, e.lastUsed.Load()), nil
}

// persist writes r durably.
func (s *Service) persist(r *record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("keys: encoding key %s: %w", r.ID, err)
	}
	if err := s.backend.Put(recordKey(r.ID), b); err != nil {
		return fmt.Errorf("keys: storing key %s: %w", r.ID, err)
	}
	return nil
}
