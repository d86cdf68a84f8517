package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// DefaultMaxConns is the pool size when the connection string does not set
// pool_max_conns.
const DefaultMaxConns = 16

// DB is a PostgreSQL connection pool whose schema [Open] has migrated.
type DB struct {
	// Pool is the connection pool shared by the domain stores.
	Pool   *pgxpool.Pool
	logger *zap.Logger
}

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value connection string), waits up to ten seconds for it to answer
// and applies the pending migrations. A nil logger logs nothing.
func Open(ctx context.Context, dsn string, logger *zap.Logger) (*DB, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: the connection string is not valid: %w", redactErr(err))
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		// The default (the number of CPUs, at least 4) is too few for a
		// gateway: the audit writer, background writes and every running
		// batch's claim each hold a connection.
		cfg.MaxConns = max(cfg.MaxConns, DefaultMaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: cannot reach %s: %w", cfg.ConnConfig.Host, err)
	}
	db := &DB{Pool: pool, logger: logger}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Destruct closes the pool. It makes DB a caddy.Destructor, so an app can
// share one pool across config reloads.
func (db *DB) Destruct() error {
	db.Pool.Close()
	return nil
}

// redactErr drops the text of a DSN parse error, which may quote the
// password, keeping only that parsing failed.
func redactErr(err error) error {
	if err == nil {
		return nil
	}
	return errors.New("check its syntax (the error is not shown because it may contain the password)")
}
