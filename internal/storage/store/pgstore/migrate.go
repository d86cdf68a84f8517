package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"
)

// migration is one schema change of one domain. Versions of a domain
// start at 1 and are applied in order; an applied migration never changes.
type migration struct {
	domain  string
	version int
	sql     string
}

// migrations are every domain's migrations, appended by register from the
// domain files.
var migrations []migration

// register adds a domain's migrations, numbered 1, 2, ... in the order
// given. It is called from package-level variable initialisers.
func register(domain string, sqls ...string) struct{} {
	for i, s := range sqls {
		migrations = append(migrations, migration{domain: domain, version: i + 1, sql: s})
	}
	return struct{}{}
}

// migrationLock is the advisory lock key held while migrating, so that
// processes starting at once apply each migration once.
const migrationLock = 0x6d67_6d69_6772 // "mgmigr"

// migrate applies, in one transaction under the advisory lock, every
// migration not yet recorded in modelgate_migrations.
func (db *DB) migrate(ctx context.Context) error {
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS modelgate_migrations (
		domain text NOT NULL, version int NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (domain, version))`); err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT domain, version FROM modelgate_migrations`)
	if err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	applied := map[string]int{}
	for rows.Next() {
		var d string
		var v int
		if err := rows.Scan(&d, &v); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: migrating: %w", err)
		}
		applied[d] = max(applied[d], v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	todo := slices.Clone(migrations)
	slices.SortStableFunc(todo, func(a, b migration) int {
		if c := strings.Compare(a.domain, b.domain); c != 0 {
			return c
		}
		return a.version - b.version
	})
	n := 0
	for _, m := range todo {
		if m.version <= applied[m.domain] {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("postgres: migration %s %d: %w", m.domain, m.version, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO modelgate_migrations (domain, version) VALUES ($1, $2)`, m.domain, m.version); err != nil {
			return fmt.Errorf("postgres: migration %s %d: %w", m.domain, m.version, err)
		}
		n++
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: migrating: %w", err)
	}
	if n > 0 {
		db.logger.Info("postgres schema migrated", zap.Int("migrations", n))
	}
	return nil
}
