// Package redistest gives tests a Redis server and a key prefix of their
// own.
//
// The server is MODELGATE_TEST_REDIS_URL, by default redis://127.0.0.1:6379/0.
// When it does not answer the test is skipped with a message saying so,
// unless MODELGATE_REQUIRE_REDIS=1 (set by CI, which starts one), where it
// fails.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultURL is the server used when MODELGATE_TEST_REDIS_URL is unset.
const DefaultURL = "redis://127.0.0.1:6379/0"

// URL returns the test server's URL.
func URL() string {
	if v := os.Getenv("MODELGATE_TEST_REDIS_URL"); v != "" {
		return v
	}
	return DefaultURL
}

// New returns the server's URL and a fresh key prefix for t, whose keys are
// deleted when t ends. It skips (or fails, under MODELGATE_REQUIRE_REDIS=1)
// when the server cannot be reached.
func New(t testing.TB) (url, prefix string) {
	t.Helper()
	opts, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatalf("redistest: MODELGATE_TEST_REDIS_URL: %v", err)
	}
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		if os.Getenv("MODELGATE_REQUIRE_REDIS") == "1" {
			t.Fatalf("Redis is required (MODELGATE_REQUIRE_REDIS=1) but %s does not answer: %v", URL(), err)
		}
		t.Skipf("skipped: no Redis at %s (%v); start one or set MODELGATE_TEST_REDIS_URL", URL(), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix = "mgtest:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return URL(), prefix
}
