package caddymodule

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
)

// caches shares one response cache per store path across config loads,
// like limiters: old and new config serve and fill the same entries, and
// one in-memory index stays in step with the stored entries.
var caches = caddy.NewUsagePool()

// CacheClock, when set before a config starts, is the clock of the
// response cache that config creates (entry expiry); nil means time.Now.
// Tests set it to move time forward.
var CacheClock func() time.Time

// sharedCache makes a response cache a caddy.Destructor; the entries are
// already in the store, so there is nothing to release.
type sharedCache struct{ c *cache.Cache }

// Destruct implements caddy.Destructor.
func (sharedCache) Destruct() error { return nil }

// ResponseCache is the response cache as the handler chain uses it.
type ResponseCache struct {
	// Cache holds the entries.
	*cache.Cache
	// Global reports whether entries are shared across user paths
	// (cache.scope global); otherwise the user path is part of the key.
	Global bool
	// MaxBodyBytes is the largest request body the gateway accepts.
	MaxBodyBytes int64
}

// openCache takes (or creates) the shared response cache of the store
// when the cache is enabled, applying this config's TTL and size caps.
// With Redis the entries live there, shared by every gateway process on
// that server (a hit stored by one is a hit at all). Caller holds the
// store and the backends.
func (a *App) openCache() error {
	cc := a.effective.Cache
	if !cc.On() {
		return nil
	}
	opts := cache.Options{Storage: boltstore.NewCache(a.store), TTL: cc.TTL(), MaxBytes: cc.Limit(),
		MaxEntryBytes: cc.EntryLimit(), Now: CacheClock}
	if a.redis != nil {
		opts.Storage, opts.Shared = redisstore.NewCache(a.redis), true
	}
	val, _, err := caches.LoadOrNew(a.cachePoolKey(), func() (caddy.Destructor, error) {
		c, err := cache.Open(opts)
		if err != nil {
			return nil, err
		}
		return sharedCache{c}, nil
	})
	if err != nil {
		return fmt.Errorf("modelgate: opening the response cache: %w", err)
	}
	c := val.(sharedCache).c
	a.cacheHeld = true
	if err := c.SetLimits(cc.TTL(), cc.Limit(), cc.EntryLimit()); err != nil {
		a.logger.Warn("response cache: evicting to the new size cap failed: " + err.Error())
	}
	a.respCache = &ResponseCache{Cache: c, Global: cc.Global(), MaxBodyBytes: a.effective.Server.MaxRequestBodyBytes}
	return nil
}

// cachePoolKey names the shared response cache of this config: the
// store's, or with Redis the store's and the Redis server's, so a reload
// that switches Redis on or off opens a cache over the other storage.
func (a *App) cachePoolKey() string {
	if a.effective.Redis == "" {
		return a.storePath
	}
	return a.storePath + "\x00redis\x00" + a.effective.Redis
}

// releaseCache drops this instance's hold on the shared response cache.
func (a *App) releaseCache() error {
	if !a.cacheHeld {
		return nil
	}
	a.cacheHeld = false
	if _, err := caches.Delete(a.cachePoolKey()); err != nil {
		return fmt.Errorf("modelgate: closing the response cache: %w", err)
	}
	return nil
}

// adminCache is the cache /admin/cache shows and purges: nil when it is
// off.
func (a *App) adminCache() *cache.Cache {
	if a.respCache == nil {
		return nil
	}
	return a.respCache.Cache
}
