package caddymodule

import (
	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/platform/config"
)

// resolveSecrets returns c with the Caddy runtime placeholders in its
// secrets (master_key, every provider's api_key, the PostgreSQL
// connection string and the Redis URL, which may hold passwords) replaced,
// e.g.
// {env.GATEWAY_MASTER_KEY} by that environment variable's value. The
// secret is then read when the app is provisioned and never written into
// the JSON config, so `caddy adapt` output, autosave.json and Caddy's admin
// API show the placeholder, not the key. An unknown placeholder is left as
// written; an unset variable gives the empty string (no key). c itself is
// not modified.
func resolveSecrets(c config.Config) config.Config {
	repl := caddy.NewReplacer()
	c.MasterKey = repl.ReplaceKnown(c.MasterKey, "")
	c.Postgres = repl.ReplaceKnown(c.Postgres, "")
	c.Redis = repl.ReplaceKnown(c.Redis, "")
	if len(c.Providers) > 0 {
		ps := make(config.Providers, len(c.Providers))
		copy(ps, c.Providers)
		for i := range ps {
			ps[i].APIKey = repl.ReplaceKnown(ps[i].APIKey, "")
		}
		c.Providers = ps
	}
	return c
}
