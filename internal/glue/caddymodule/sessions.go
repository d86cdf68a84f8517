package caddymodule

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
)

// sessionGuards shares one session guard per store across config loads,
// like the budgets: a reload keeps every session's counters.
var sessionGuards = caddy.NewUsagePool()

// sharedGuard makes a guard a caddy.Destructor; it holds nothing to
// release.
type sharedGuard struct{ g *sessions.Guard }

// Destruct implements caddy.Destructor.
func (sharedGuard) Destruct() error { return nil }

// provisionSessions reads the configuration's session limits so that a
// malformed one aborts startup.
func (a *App) provisionSessions() error {
	list, err := sessions.FromConfig(a.effective.SessionLimits)
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.sessionSeed = list
	return nil
}

// openSessions takes (or creates) the shared session guard of the store,
// its admin-written limits loaded from the storage, and installs this
// config's limits. Caller holds the store.
func (a *App) openSessions() error {
	st := a.store
	val, _, err := sessionGuards.LoadOrNew(a.budgetsKey(), func() (caddy.Destructor, error) {
		var storage sessions.Storage = boltstore.NewSessionLimits(st)
		if a.pg != nil {
			storage = pgstore.NewSessionLimits(a.pg)
		}
		g, err := sessions.New(sessions.Options{Storage: storage})
		if err != nil {
			return nil, err
		}
		return sharedGuard{g}, nil
	})
	if err != nil {
		return fmt.Errorf("modelgate: loading session limits: %w", err)
	}
	a.sessionGuard, a.sessionsHeld = val.(sharedGuard).g, true
	a.sessionGuard.SetConfig(a.sessionSeed)
	return nil
}

// releaseSessions drops this instance's hold on the shared guard.
func (a *App) releaseSessions() error {
	if !a.sessionsHeld {
		return nil
	}
	a.sessionsHeld = false
	if _, err := sessionGuards.Delete(a.budgetsKey()); err != nil {
		return fmt.Errorf("modelgate: closing session limits: %w", err)
	}
	return nil
}
