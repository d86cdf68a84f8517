package main

import (
	"fmt"
	"path/filepath"
)

// Credentials the harness uses. Nothing real: every process is on loopback.
const (
	masterKey   = "bench-master-key"   // callers' key for modelgate
	upstreamKey = "bench-upstream-key" // mockupstream's key; modelgate's provider key
	benchModel  = "mock-chat"
)

// plainCaddyfile is the baseline a user would run without a gateway: the
// same binary (modelgate is Caddy with the standard modules), a bare
// reverse_proxy, no admin endpoint and nothing persisted.
func plainCaddyfile(dir string, port, upstreamPort int) string {
	return fmt.Sprintf(`{
	admin off
	persist_config off
	storage file_system %s
}

http://:%d {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d
}
`, filepath.Join(dir, "caddy-storage-plain"), port, upstreamPort)
}

// modelgateCaddyfile is the gateway under test: the full default chain
// (the modelgate directive), the master key on, one OpenAI-family provider
// pointing at mockupstream. name keeps each gateway's files (its store,
// Caddy's storage) apart. adminAddr is Caddy's admin endpoint on loopback:
// the harness reads the audit drop counters from its /metrics and, when
// profiling, /debug/pprof/. storage is the modelgate block's storage
// lines (boltStorage or sharedStorage).
func modelgateCaddyfile(dir, name string, port, upstreamPort int, adminAddr, storage string) string {
	return fmt.Sprintf(`{
	admin %s
	persist_config off
	storage file_system %s
	modelgate {
		%s
		master_key %s
		provider up {
			type openai
			api_key %s
			base_url http://127.0.0.1:%d/v1
			models %s
			models_mode allowlist
		}
	}
}

http://:%d {
	bind 127.0.0.1
	modelgate
}
`, adminAddr, filepath.Join(dir, "caddy-storage-"+name), storage,
		masterKey, upstreamKey, upstreamPort, benchModel, port)
}

// boltStorage is the storage line of a gateway on its own bbolt file,
// named after the target, in dir.
func boltStorage(dir, name string) string {
	return "storage " + filepath.Join(dir, name+".db")
}

// sharedStorage is the storage lines of a gateway on PostgreSQL and Redis.
func sharedStorage(s *sharedBackends) string {
	return "storage postgres " + s.DSN + "\n\t\tredis " + s.RedisURL
}

// sharedEnv is the environment of the modelgate-pg target: modelgateEnv,
// the run's Redis key prefix, and the bbolt file the gateway still opens
// for what stays local, in dir.
func sharedEnv(dir string, s *sharedBackends) []string {
	return append(append([]string(nil), modelgateEnv...),
		"MODELGATE_REDIS_PREFIX="+s.Prefix, "MODELGATE_DATA_PATH="+filepath.Join(dir, targetPG+".db"))
}

// modelgateEnv turns on what the budget measures, each set explicitly so
// that an operator's environment cannot turn it off: audit logging with
// request and response bodies and headers, usage records, budgets (none
// configured: the check finds nothing to enforce) and one user-path
// rate-limit rule on "/" that matches all traffic without ever refusing it.
var modelgateEnv = []string{
	"LOGGING_ENABLED=true",
	"LOGGING_LOG_BODIES=true",
	"LOGGING_LOG_HEADERS=true",
	"USAGE_ENABLED=true",
	"RATE_LIMITS_ENABLED=true",
	"SET_RATE_LIMIT_=rpm=100000000",
	"BUDGETS_ENABLED=true",
}

// budgetAmount is the daily budget on "/" of the modelgate-budget target:
// far more than any run can spend, so no request is refused.
const budgetAmount = "1000000000"

// cacheEnv is modelgateEnv plus the response cache.
var cacheEnv = append(append([]string(nil), modelgateEnv...), "RESPONSE_CACHE_ENABLED=true")

// budgetEnv is modelgateEnv plus that one budget covering all traffic.
var budgetEnv = append(append([]string(nil), modelgateEnv...), "SET_BUDGET_=daily="+budgetAmount)

// aliasEnv is modelgateEnv plus a virtual model named like the bench
// model with two targets, both that model on the one provider: requests
// keep their model name and resolve through the alias.
var aliasEnv = append(append([]string(nil), modelgateEnv...),
	`VIRTUAL_MODELS=[{"source":"`+benchModel+`","targets":[{"provider":"up","model":"`+benchModel+`","weight":1},{"provider":"up","model":"`+benchModel+`","weight":1}]}]`)
