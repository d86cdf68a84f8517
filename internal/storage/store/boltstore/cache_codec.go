package boltstore

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/cache"
)

// encodeCacheEntry returns the stored form of e, one value: cache.Format,
// the metadata (cache.AppendMeta), then the answer (cache.AppendAnswer),
// so Scan reads the metadata without decoding the answer.
func encodeCacheEntry(e *cache.Entry) []byte {
	b := make([]byte, 1, 1+cache.MetaSize(&e.Meta)+cache.AnswerSize(&e.Answer))
	b[0] = cache.Format
	return cache.AppendAnswer(cache.AppendMeta(b, &e.Meta), &e.Answer)
}

// decodeCacheMeta reads the metadata of the entry stored under key with
// value v and returns it with the bytes of the answer.
func decodeCacheMeta(key, v []byte) (cache.Meta, []byte, error) {
	var m cache.Meta
	if len(key) != len(m.Key) {
		return m, nil, fmt.Errorf("cache store: %w", cache.ErrMalformed)
	}
	rest, err := cache.CutFormat(v)
	if err == nil {
		m, rest, err = cache.DecodeMeta(rest)
	}
	if err != nil {
		return cache.Meta{}, nil, fmt.Errorf("cache store: %w", err)
	}
	copy(m.Key[:], key)
	m.Size = int64(len(key) + len(v))
	return m, rest, nil
}

// decodeCacheEntry decodes a whole stored entry. The chunks alias v.
func decodeCacheEntry(key, v []byte) (cache.Entry, error) {
	m, rest, err := decodeCacheMeta(key, v)
	if err != nil {
		return cache.Entry{}, err
	}
	a, err := cache.DecodeAnswer(rest)
	if err != nil {
		return cache.Entry{}, fmt.Errorf("cache store: %w", err)
	}
	return cache.Entry{Meta: m, Answer: a}, nil
}
