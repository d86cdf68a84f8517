package keys

import (
	"encoding/hex"
	"time"
)

// State is the effective state of a managed key.
type State string

// Key states.
const (
	// StateActive keys authenticate.
	StateActive State = "active"
	// StateDeactivated keys were switched off; they are refused until
	// enabled again.
	StateDeactivated State = "deactivated"
	// StateExpired keys are past their expiry time; they are refused.
	StateExpired State = "expired"
)

// Key is the public view of a managed key, as the admin API lists it. It
// never holds the key itself or its hash.
type Key struct {
	// ID names the key in the admin API and in audit records.
	ID string `json:"id"`
	// Name is a human label.
	Name string `json:"name"`
	// Description is free text.
	Description string `json:"description"`
	// Prefix is the start of the key (sk_mg_ and six characters), so an
	// operator can tell which key a client holds.
	Prefix string `json:"prefix"`
	// UserPath is the user path bound to the key; it overrides the
	// user-path header. Empty when the key is not bound.
	UserPath string `json:"user_path"`
	// DashboardAccess lets the key use /admin/*.
	DashboardAccess bool `json:"dashboard_access"`
	// Enabled is false once the key is deactivated.
	Enabled bool `json:"enabled"`
	// State is active, deactivated or expired.
	State State `json:"state"`
	// CreatedAt is when the key was created.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the key was last changed.
	UpdatedAt time.Time `json:"updated_at"`
	// LastUsedAt is when the key last authenticated a request, or nil.
	// It is kept in memory and persisted at most about once a minute.
	LastUsedAt *time.Time `json:"last_used_at"`
	// ExpiresAt is when the key stops working, or nil for never.
	ExpiresAt *time.Time `json:"expires_at"`
	// DeactivatedAt is when the key was deactivated, or nil.
	DeactivatedAt *time.Time `json:"deactivated_at"`
}

// record is a managed key as persisted, in bucket Bucket under
// recordKey(id). Hash is the hex SHA-256 of the key; the key itself is
// never stored.
type record struct {
	V               int        `json:"v"`
	ID              string     `json:"id"`
	Hash            string     `json:"hash"`
	Prefix          string     `json:"prefix"`
	Name            string     `json:"name"`
	Description     string     `json:"description,omitempty"`
	UserPath        string     `json:"user_path,omitempty"`
	DashboardAccess bool       `json:"dashboard_access"`
	Enabled         bool       `json:"enabled"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	ExpiresAt       *time.Time `json:"expires_at,omitempty"`
	DeactivatedAt   *time.Time `json:"deactivated_at,omitempty"`
}

// recordVersion is the V of records written by this code.
const recordVersion = 1

// state returns the record's state at now.
func (r *record) state(now time.Time) State {
	switch {
	case !r.Enabled:
		return StateDeactivated
	case r.ExpiresAt != nil && !now.Before(*r.ExpiresAt):
		return StateExpired
	}
	return StateActive
}

// hashBytes decodes Hash.
func (r *record) hashBytes() ([hashSize]byte, bool) {
	var h [hashSize]byte
	n, err := hex.Decode(h[:], []byte(r.Hash))
	return h, err == nil && n == hashSize && len(r.Hash) == 2*hashSize
}

// view returns the public view of r at now, with lastUsed (unix nanos,
// 0 for never).
func (r *record) view(now time.Time, lastUsed int64) Key {
	k := Key{
		ID: r.ID, Name: r.Name, Description: r.Description, Prefix: r.Prefix,
		UserPath: r.UserPath, DashboardAccess: r.DashboardAccess, Enabled: r.Enabled,
		State: r.state(now), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		ExpiresAt: r.ExpiresAt, DeactivatedAt: r.DeactivatedAt,
	}
	if lastUsed != 0 {
		t := time.Unix(0, lastUsed).UTC()
		k.LastUsedAt = &t
	}
	return k
}
