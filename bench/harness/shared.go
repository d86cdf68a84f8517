package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// Default servers of the modelgate-pg target: the loopback PostgreSQL
// (its maintenance database, where the run's own database is created) and
// the loopback Redis.
const (
	defaultPostgresDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	defaultRedisURL    = "redis://127.0.0.1:6379/0"
)

// sharedBackends are what the modelgate-pg target stores in: a PostgreSQL
// database and a Redis key prefix made for this run alone, so nothing of
// an earlier run or of the tests is counted, and removed after it.
type sharedBackends struct {
	// DSN is the run's database.
	DSN string
	// RedisURL is the Redis server; Prefix starts every key the gateway
	// writes there (MODELGATE_REDIS_PREFIX).
	RedisURL, Prefix string

	adminDSN, dbName string
}

// prepareShared creates the run's database on the server of adminDSN and
// checks that Redis answers. An error says the target cannot run.
func prepareShared(ctx context.Context, adminDSN, redisURL, runID string) (*sharedBackends, error) {
	if adminDSN == "" || redisURL == "" {
		return nil, fmt.Errorf("-postgres and -redis must both be set")
	}
	u, err := url.Parse(adminDSN)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("-postgres must be a postgres:// URL")
	}
	ropts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("-redis: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rc := redis.NewClient(ropts)
	defer rc.Close()
	if err := rc.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis at %s does not answer: %w", ropts.Addr, err)
	}
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return nil, fmt.Errorf("postgresql at %s does not answer: %w", u.Host, err)
	}
	defer conn.Close(context.Background())
	s := &sharedBackends{
		RedisURL: redisURL,
		Prefix:   "modelgate-bench-" + runID + ":",
		adminDSN: adminDSN,
		dbName:   "modelgate_bench_" + strings.ToLower(runID),
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{s.dbName}.Sanitize()); err != nil {
		return nil, fmt.Errorf("creating database %s: %w", s.dbName, err)
	}
	u.Path = "/" + s.dbName
	s.DSN = u.String()
	return s, nil
}

// drop removes the run's database and its Redis keys; the gateways using
// them must have stopped.
func (s *sharedBackends) drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var errs []string
	if conn, err := pgx.Connect(ctx, s.adminDSN); err != nil {
		errs = append(errs, err.Error())
	} else {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.dbName}.Sanitize()+" WITH (FORCE)"); err != nil {
			errs = append(errs, err.Error())
		}
		conn.Close(ctx)
	}
	if ropts, err := redis.ParseURL(s.RedisURL); err == nil {
		rc := redis.NewClient(ropts)
		iter := rc.Scan(ctx, 0, s.Prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			rc.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			errs = append(errs, err.Error())
		}
		rc.Close()
	}
	if len(errs) > 0 {
		return fmt.Errorf("removing the modelgate-pg database and keys: %s", strings.Join(errs, "; "))
	}
	return nil
}

// dropTarget takes target out of this run: out of the gateway targets and
// the targets of every workload.
func dropTarget(target string) {
	is := func(t string) bool { return t == target }
	gatewayTargets = slices.DeleteFunc(slices.Clone(gatewayTargets), is)
	allTargets = slices.DeleteFunc(slices.Clone(allTargets), is)
	for i := range workloads {
		workloads[i].Targets = slices.DeleteFunc(slices.Clone(workloads[i].Targets), is)
	}
}
