package caddymodule

import (
	"context"
	"testing"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestSharedStateWithoutRedis: no Redis, no shared stores (and no nil
// pointer hidden in an interface).
func TestSharedStateWithoutRedis(t *testing.T) {
	a := &App{}
	if a.spendStore() != nil || a.pinStore() != nil {
		t.Fatal("shared stores without Redis")
	}
}

// TestResponseCacheSharedThroughRedis: two apps on one Redis (as two
// processes) share cache hits.
func TestResponseCacheSharedThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	on := true
	var apps []*App
	for _, path := range []string{t.TempDir(), t.TempDir()} {
		c, err := redisstore.Open(context.Background(), redisstore.Options{URL: url, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Destruct() })
		a := &App{logger: zap.NewNop(), storePath: path, redis: c}
		a.effective.Redis = url
		a.effective.Cache.Enabled = &on
		if a.spendStore() == nil || a.pinStore() == nil {
			t.Fatal("no shared stores with Redis")
		}
		if err := a.openCache(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.releaseCache() })
		apps = append(apps, a)
	}
	var k cache.Key
	k[0] = 42
	if err := apps[0].respCache.Put(cache.Meta{Key: k}, &cache.Answer{Chunks: [][]byte{[]byte("hi")}}); err != nil {
		t.Fatal(err)
	}
	ans, _, err := apps[1].respCache.Lookup(context.Background(), k, false)
	if err != nil || ans == nil || string(ans.Chunks[0]) != "hi" {
		t.Fatalf("no hit at the second app: %v, %v", ans, err)
	}
}
