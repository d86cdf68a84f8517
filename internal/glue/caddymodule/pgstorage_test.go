package caddymodule

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// startPgApp provisions and starts an App on its own bbolt file and the
// PostgreSQL database dsn, stopped when t ends.
func startPgApp(t *testing.T, dsn string) *App {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	a := &App{}
	a.Storage = filepath.Join(t.TempDir(), "mg.db")
	a.Postgres = dsn
	a.Providers = nil
	if err := a.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Stop(); err != nil {
			t.Error(err)
		}
	})
	return a
}

// TestTwoAppsShareOnePostgres: two apps on one database (as two
// processes: separate pools, separate bbolt files) see at start the keys,
// budgets and virtual models the other wrote; each has its own key
// service, keyed by its DSN.
func TestTwoAppsShareOnePostgres(t *testing.T) {
	t.Setenv("MODELGATE_POSTGRES_DSN", "")
	dsn := pgtest.NewDatabase(t)
	a := startPgApp(t, dsn)
	_, secret, err := a.keySvc.Create(keys.NewKey{Name: "shared", UserPath: "/team"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.budgetSvc.Put(budgets.Key{UserPath: "/team", Period: budgets.Daily}, 5, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.vmodels.Put(vmodels.VirtualModel{Source: "*", Description: "policy"}, ""); err != nil {
		t.Fatal(err)
	}

	// The same database under another connection string: another pool
	// and another key service, as in a second process.
	b := startPgApp(t, dsn+"&application_name=second")
	if b.keySvc == a.keySvc {
		t.Fatal("the two apps share one key service; the second did not load from the database")
	}
	if m := b.keySvc.Authenticate(secret); !m.Found || m.UserPath != "/team" {
		t.Fatalf("second app: %+v", m)
	}
	if l := b.budgetSvc.List(); len(l) != 1 || l[0].UserPath != "/team" || l[0].Amount != 5 {
		t.Fatalf("second app budgets: %+v", l)
	}
	var found bool
	for _, r := range b.vmodels.List() {
		found = found || (r.Source == "*" && !r.Managed)
	}
	if !found {
		t.Fatal("second app does not have the stored virtual model")
	}
}
