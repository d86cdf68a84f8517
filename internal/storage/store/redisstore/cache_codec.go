package redisstore

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/cache"
)

// encodeCacheMeta is the "m" field of an entry: cache.Format, then the
// metadata (cache.AppendMeta).
func encodeCacheMeta(m *cache.Meta) []byte { return cache.AppendMeta([]byte{cache.Format}, m) }

// encodeCacheAnswer is the "a" field of an entry: cache.Format, then the
// answer (cache.AppendAnswer).
func encodeCacheAnswer(a *cache.Answer) []byte { return cache.AppendAnswer([]byte{cache.Format}, a) }

// decodeCacheMeta decodes an "m" field of the entry under key; size is
// the entry's stored size.
func decodeCacheMeta(key cache.Key, v []byte, size int64) (cache.Meta, error) {
	rest, err := cache.CutFormat(v)
	var m cache.Meta
	if err == nil {
		m, rest, err = cache.DecodeMeta(rest)
	}
	if err == nil && len(rest) != 0 {
		err = cache.ErrMalformed
	}
	if err != nil {
		return cache.Meta{}, fmt.Errorf("redis cache: %w", err)
	}
	m.Key, m.Size = key, size
	return m, nil
}

// decodeCacheAnswer decodes an "a" field. The chunks alias v.
func decodeCacheAnswer(v []byte) (cache.Answer, error) {
	rest, err := cache.CutFormat(v)
	var a cache.Answer
	if err == nil {
		a, err = cache.DecodeAnswer(rest)
	}
	if err != nil {
		return cache.Answer{}, fmt.Errorf("redis cache: %w", err)
	}
	return a, nil
}
