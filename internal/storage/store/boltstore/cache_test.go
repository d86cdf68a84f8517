package boltstore

import (
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func cacheEntry(n byte) cache.Entry {
	e := cache.Entry{
		Meta: cache.Meta{Created: time.Unix(100, 5), Expires: time.Unix(3700, 5), UserPath: "/team", Provider: "openai", Model: "gpt-4o"},
		Answer: cache.Answer{Stream: true, ProviderType: "openai", HasUsage: true,
			Usage:   catalog.Usage{InputTokens: 17, OutputTokens: 4, TotalTokens: 21, ReasoningTokens: 1},
			Headers: []cache.Header{{Name: "Content-Type", Value: "text/event-stream"}},
			Chunks:  [][]byte{[]byte("data: {}\n\n"), []byte("data: [DONE]\n\n")}},
	}
	e.Key[0] = n
	return e
}

// TestCacheStorage: an entry is readable right after Put, round-trips
// every field, survives a reopen, is listed by Scan and deleted by
// Delete.
func TestCacheStorage(t *testing.T) {
	s, path := tempStore(t)
	cs := NewCache(s)
	want := cacheEntry(1)
	size, err := cs.Put(want)
	if err != nil {
		t.Fatal(err)
	}
	want.Size = size
	got, ok, err := cs.Get(want.Key) // before the writer commits
	if err != nil || !ok {
		t.Fatalf("get before commit: %v %v", ok, err)
	}
	norm := func(e cache.Entry) cache.Entry {
		e.Created, e.Expires = e.Created.UTC(), e.Expires.UTC()
		return e
	}
	if !reflect.DeepEqual(norm(got), norm(want)) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, path)
	t.Cleanup(func() { s.Close() })
	cs = NewCache(s)
	got, ok, err = cs.Get(want.Key)
	if err != nil || !ok || !reflect.DeepEqual(norm(got), norm(want)) {
		t.Fatalf("after reopen: %v %v %+v", ok, err, got)
	}
	var metas []cache.Meta
	if err := cs.Scan(func(m cache.Meta) error { metas = append(metas, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(metas) != 1 || !reflect.DeepEqual(norm(cache.Entry{Meta: metas[0]}).Meta, norm(want).Meta) {
		t.Fatalf("scan %+v", metas)
	}
	if err := cs.Delete([]cache.Key{want.Key}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := cs.Get(want.Key); ok {
		t.Fatal("deleted entry still there")
	}
}

// TestCacheCodecRejectsDamage: a cut or altered record is an error, never
// a panic.
func TestCacheCodecRejectsDamage(t *testing.T) {
	e := cacheEntry(2)
	v := encodeCacheEntry(&e)
	for i := 0; i < len(v); i++ {
		if _, err := decodeCacheEntry(e.Key[:], v[:i]); err == nil {
			t.Fatalf("a record cut at %d decoded", i)
		}
	}
	if _, err := decodeCacheEntry(e.Key[:], append([]byte{9}, v[1:]...)); err == nil {
		t.Fatal("an unknown version decoded")
	}
}
