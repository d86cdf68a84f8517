package redisstore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// sharedCache opens a response cache over Redis client c.
func sharedCache(t *testing.T, c *Client) *cache.Cache {
	t.Helper()
	rc, err := cache.Open(cache.Options{Storage: NewCache(c), TTL: time.Minute, Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func testAnswer() *cache.Answer {
	return &cache.Answer{
		Stream: true, ProviderType: "openai", HasUsage: true,
		Usage:   catalog.Usage{InputTokens: 12, OutputTokens: 3, TotalTokens: 15, CachedInputTokens: 2},
		Headers: []cache.Header{{Name: "Content-Type", Value: "text/event-stream"}},
		Chunks:  [][]byte{[]byte("data: {\"a\":1}\n\n"), []byte("data: [DONE]\n\n")},
	}
}

func TestCacheEntrySharedThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	c1, c2 := openTest(t, url, prefix), openTest(t, url, prefix)
	p1, p2 := sharedCache(t, c1), sharedCache(t, c2)
	k, err := cache.KeyOf(cache.Request{Endpoint: "/v1/chat/completions", Provider: "openai", Model: "gpt-4o"}, []byte(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	ans, f, err := p2.Lookup(context.Background(), k, true)
	if err != nil || ans != nil {
		t.Fatalf("hit before anything was stored: %v, %v", ans, err)
	}
	f.Done(nil)
	want := testAnswer()
	if err := p1.Put(cache.Meta{Key: k, UserPath: "/team", Provider: "openai", Model: "gpt-4o"}, want); err != nil {
		t.Fatal(err)
	}
	got, f, err := p2.Lookup(context.Background(), k, true)
	if err != nil || got == nil {
		t.Fatalf("an entry stored through process 1 is no hit at process 2: %v", err)
	}
	f.Done(nil)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hit %+v, want %+v", got, want)
	}
	ttl := c1.R.PTTL(context.Background(), NewCache(c1).key(k)).Val()
	if ttl <= 50*time.Second || ttl > time.Minute {
		t.Fatalf("entry expires in %v, want about the one-minute TTL", ttl)
	}
	st, err := p2.Stats()
	if err != nil || st.Entries != 1 || st.Bytes <= int64(len(k)) || st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("stats at process 2: %+v, %v", st, err)
	}
	// A process started later finds it too (indexed at open).
	if got, _, _ := sharedCache(t, openTest(t, url, prefix)).Lookup(context.Background(), k, false); got == nil {
		t.Fatal("no hit at a process started after the entry was stored")
	}
	// A purge through process 2 removes it for process 1.
	if n, err := p2.Purge(cache.Filter{UserPath: "/team"}); err != nil || n != 1 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	if got, _, _ := p1.Lookup(context.Background(), k, false); got != nil {
		t.Fatal("hit at process 1 after process 2 purged the entry")
	}
}

func TestCacheScanSkipsOtherKeysAndBadEntries(t *testing.T) {
	url, prefix := redistest.New(t)
	c := openTest(t, url, prefix)
	st := NewCache(c)
	ctx := context.Background()
	c.R.Set(ctx, c.Key("cache", "not-hex"), "x", time.Minute)
	c.R.HSet(ctx, c.Key("cache", "00000000000000000000000000000000000000000000000000000000000000ff"), "m", "garbage", "a", "x")
	c.R.Set(ctx, c.Key("other"), "x", time.Minute)
	var k cache.Key
	k[0] = 7
	now := time.Now()
	if _, err := st.Put(cache.Entry{Meta: cache.Meta{Key: k, Created: now, Expires: now.Add(time.Minute), Model: "m"}, Answer: *testAnswer()}); err != nil {
		t.Fatal(err)
	}
	var seen []cache.Meta
	if err := st.Scan(func(m cache.Meta) error { seen = append(seen, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Key != k || seen[0].Model != "m" || !seen[0].Expires.Equal(now.Add(time.Minute)) {
		t.Fatalf("scan saw %+v", seen)
	}
	e, ok, err := st.Get(k)
	if err != nil || !ok || e.Size != seen[0].Size {
		t.Fatalf("get: size %d (scan %d), ok=%v err=%v", e.Size, seen[0].Size, ok, err)
	}
}

func TestCacheWithRedisDownIsAMiss(t *testing.T) {
	c, err := Open(context.Background(), Options{URL: "redis://127.0.0.1:1/0", Prefix: "mgtest:down:"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	st := NewCache(c)
	var k cache.Key
	if _, ok, err := st.Get(k); ok || err == nil {
		t.Fatalf("get with Redis down: ok=%v err=%v", ok, err)
	}
	start := time.Now()
	for range 100 {
		if _, ok, _ := st.Get(k); ok {
			t.Fatal("hit with Redis down")
		}
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("100 lookups with Redis down took %v; they should fail at once", d)
	}
}

// BenchmarkCacheHitRedis is a hit on an entry another process stored: a
// 1 KiB answer read from Redis in one round trip.
func BenchmarkCacheHitRedis(b *testing.B) {
	url, prefix := redistest.New(b)
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Destruct()
	st := NewCache(c)
	var k cache.Key
	k[0] = 1
	now := time.Now()
	ans := cache.Answer{Chunks: [][]byte{make([]byte, 1024)}, Headers: []cache.Header{{Name: "Content-Type", Value: "application/json"}}}
	if _, err := st.Put(cache.Entry{Meta: cache.Meta{Key: k, Created: now, Expires: now.Add(time.Hour)}, Answer: ans}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := st.Get(k); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
