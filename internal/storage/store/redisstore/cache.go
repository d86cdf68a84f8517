package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/cache"
)

// cacheTimeout bounds one call of the cache store; a miss is cheaper
// than a request held up by a slow Redis.
const cacheTimeout = 500 * time.Millisecond

// cacheScanTimeout bounds one batch of Scan.
const cacheScanTimeout = 2 * time.Second

// cacheScanBatch is how many keys Scan asks for, and reads, at a time.
const cacheScanBatch = 500

// Cache implements cache.Storage in Redis, shared by every process on
// the same server and prefix: one hash per entry, "cache:<hex key>",
// with the metadata in field "m" and the answer in field "a" (so Scan
// reads no answers), expiring at the entry's Expires. Use it with
// cache.Options.Shared. While Redis is unreachable every call fails at
// once (after the first, for a second at a time): lookups are misses and
// answers are not stored.
type Cache struct {
	c  *Client
	br breaker
}

var _ cache.Storage = (*Cache)(nil)

// NewCache returns the response-cache storage over c.
func NewCache(c *Client) *Cache {
	return &Cache{c: c, br: breaker{what: "response cache", log: c.logger}}
}

// key is the hash of k.
func (s *Cache) key(k cache.Key) string { return s.c.Key("cache", hex.EncodeToString(k[:])) }

// Get implements cache.Storage. An entry that does not decode is
// reported as an error and deleted.
func (s *Cache) Get(k cache.Key) (cache.Entry, bool, error) {
	if err := s.br.allow(); err != nil {
		return cache.Entry{}, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	vals, err := s.c.R.HMGet(ctx, s.key(k), "m", "a").Result()
	if err = s.br.done(err); err != nil {
		return cache.Entry{}, false, fmt.Errorf("redis cache: %w", err)
	}
	ms, ok1 := vals[0].(string)
	as, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return cache.Entry{}, false, nil
	}
	e, err := decodeCacheEntry(k, ms, as)
	if err != nil {
		_ = s.Delete([]cache.Key{k})
		return cache.Entry{}, false, err
	}
	return e, true, nil
}

// decodeCacheEntry decodes the two fields of the entry under k.
func decodeCacheEntry(k cache.Key, m, a string) (cache.Entry, error) {
	meta, err := decodeCacheMeta(k, []byte(m), entrySize(m, a))
	if err != nil {
		return cache.Entry{}, err
	}
	ans, err := decodeCacheAnswer([]byte(a))
	if err != nil {
		return cache.Entry{}, err
	}
	return cache.Entry{Meta: meta, Answer: ans}, nil
}

// entrySize is the stored size of an entry: its key and both fields.
func entrySize(m, a string) int64 { return int64(len(cache.Key{}) + len(m) + len(a)) }

// Put implements cache.Storage: the entry and its expiry in one
// transaction.
func (s *Cache) Put(e cache.Entry) (int64, error) {
	if err := s.br.allow(); err != nil {
		return 0, err
	}
	m, a := encodeCacheMeta(&e.Meta), encodeCacheAnswer(&e.Answer)
	key := s.key(e.Key)
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	_, err := s.c.R.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "m", m, "a", a)
		p.PExpireAt(ctx, key, e.Expires)
		return nil
	})
	if err = s.br.done(err); err != nil {
		return 0, fmt.Errorf("redis cache: %w", err)
	}
	return int64(len(e.Key) + len(m) + len(a)), nil
}

// Delete implements cache.Storage.
func (s *Cache) Delete(keys []cache.Key) error {
	if len(keys) == 0 {
		return nil
	}
	if err := s.br.allow(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	for len(keys) > 0 {
		n := min(len(keys), cacheScanBatch)
		names := make([]string, n)
		for i, k := range keys[:n] {
			names[i] = s.key(k)
		}
		if err := s.br.done(s.c.R.Del(ctx, names...).Err()); err != nil {
			return fmt.Errorf("redis cache: %w", err)
		}
		keys = keys[n:]
	}
	return nil
}

// Scan implements cache.Storage over every entry under the prefix, the
// metadata of a batch of keys read in one round trip. Entries that do not
// decode, and keys that expire during the scan, are skipped.
func (s *Cache) Scan(fn func(m cache.Meta) error) error {
	if err := s.br.allow(); err != nil {
		return err
	}
	ctx := context.Background()
	prefix := s.c.Key("cache", "")
	match := globEscape(prefix) + "*"
	var cursor uint64
	for {
		sctx, cancel := context.WithTimeout(ctx, cacheScanTimeout)
		names, next, err := s.c.R.Scan(sctx, cursor, match, cacheScanBatch).Result()
		if err == nil && len(names) > 0 {
			err = s.scanBatch(sctx, prefix, names, fn)
		}
		cancel()
		if errors.Is(err, errStop) {
			return errors.Unwrap(err)
		}
		if err = s.br.done(err); err != nil {
			return fmt.Errorf("redis cache: scanning: %w", err)
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// errStop wraps an error of Scan's fn, which stops the scan.
var errStop = errors.New("stopped")

// stopped wraps err from fn.
type stopped struct{ err error }

func (s stopped) Error() string        { return s.err.Error() }
func (s stopped) Unwrap() error        { return s.err }
func (s stopped) Is(target error) bool { return target == errStop }

// scanBatch reads the metadata and the answer length of names in one
// pipeline and calls fn for each entry.
func (s *Cache) scanBatch(ctx context.Context, prefix string, names []string, fn func(cache.Meta) error) error {
	metas := make([]*redis.StringCmd, len(names))
	lens := make([]*redis.IntCmd, len(names))
	_, err := s.c.R.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			metas[i] = p.HGet(ctx, n, "m")
			lens[i] = p.HStrLen(ctx, n, "a")
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && !isReply(err) {
		return err
	}
	for i, n := range names {
		raw, err := hex.DecodeString(strings.TrimPrefix(n, prefix))
		var k cache.Key
		if err != nil || len(raw) != len(k) {
			continue
		}
		copy(k[:], raw)
		mv, err := metas[i].Result()
		if err != nil {
			continue
		}
		al := lens[i].Val()
		m, err := decodeCacheMeta(k, []byte(mv), int64(len(k)+len(mv))+al)
		if err != nil {
			continue
		}
		if err := fn(m); err != nil {
			return stopped{err}
		}
	}
	return nil
}
