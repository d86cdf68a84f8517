package caddymodule

import (
	"context"
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
)

// pgPools shares one PostgreSQL pool per DSN across config loads, and
// redisClients one Redis client per URL, as stores does for bbolt files.
var (
	pgPools      = caddy.NewUsagePool()
	redisClients = caddy.NewUsagePool()
)

// openBackends opens the networked backends the configuration names:
// PostgreSQL (a.pg) when Postgres is set, Redis (a.redis) when Redis is
// set. A PostgreSQL that cannot be reached or migrated at start is an
// error; a Redis that does not answer is not (see redisstore.Open).
func (a *App) openBackends() error {
	if dsn := a.effective.Postgres; dsn != "" {
		val, _, err := pgPools.LoadOrNew(dsn, func() (caddy.Destructor, error) {
			return pgstore.Open(context.Background(), dsn, a.logger.Named("postgres"))
		})
		if err != nil {
			return fmt.Errorf("modelgate: opening PostgreSQL storage: %w", err)
		}
		a.pg = val.(*pgstore.DB)
	}
	if url := a.effective.Redis; url != "" {
		prefix := a.effective.RedisPrefix
		val, _, err := redisClients.LoadOrNew(redisPoolKey(url, prefix), func() (caddy.Destructor, error) {
			return redisstore.Open(context.Background(), redisstore.Options{URL: url, Prefix: prefix, Logger: a.logger.Named("redis")})
		})
		if err != nil {
			a.releaseBackends()
			return fmt.Errorf("modelgate: opening Redis: %w", err)
		}
		a.redis = val.(*redisstore.Client)
	}
	return nil
}

// releaseBackends drops this instance's hold on the networked backends;
// the last holder closes them.
func (a *App) releaseBackends() {
	if a.pg != nil {
		a.pg = nil
		_, _ = pgPools.Delete(a.effective.Postgres)
	}
	if a.redis != nil {
		a.redis = nil
		_, _ = redisClients.Delete(redisPoolKey(a.effective.Redis, a.effective.RedisPrefix))
	}
}

// redisPoolKey names the shared Redis client of one URL and key prefix:
// a reload that changes only the prefix gets a client of its own.
func redisPoolKey(url, prefix string) string { return prefix + "\x00" + url }
