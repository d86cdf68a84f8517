package redisstore

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/modelgate/modelgate/cache"
)

// cacheFormat is the first byte of both fields of a stored cache entry.
const cacheFormat = 1

// errCacheEntry reports a stored cache entry that does not decode.
var errCacheEntry = errors.New("redis cache: malformed entry")

// encodeCacheMeta is the "m" field of an entry: the format, created and
// expires (unix nanos, varints), then user path, provider and model
// (uvarint length and bytes each).
func encodeCacheMeta(m *cache.Meta) []byte {
	b := make([]byte, 0, 32+len(m.UserPath)+len(m.Provider)+len(m.Model))
	b = append(b, cacheFormat)
	b = binary.AppendVarint(b, m.Created.UnixNano())
	b = binary.AppendVarint(b, m.Expires.UnixNano())
	for _, s := range [...]string{m.UserPath, m.Provider, m.Model} {
		b = putString(b, s)
	}
	return b
}

// encodeCacheAnswer is the "a" field of an entry: the format, flags
// (1 stream, 2 usage reported), provider type, the six usage counts
// (varints), the headers (count, then name and value) and the chunks
// (count, then each with its length).
func encodeCacheAnswer(a *cache.Answer) []byte {
	n := 64 + len(a.ProviderType)
	for _, h := range a.Headers {
		n += 4 + len(h.Name) + len(h.Value)
	}
	for _, c := range a.Chunks {
		n += 4 + len(c)
	}
	b := make([]byte, 0, n)
	b = append(b, cacheFormat)
	var flags byte
	if a.Stream {
		flags |= 1
	}
	if a.HasUsage {
		flags |= 2
	}
	b = append(b, flags)
	b = putString(b, a.ProviderType)
	u := &a.Usage
	for _, v := range [...]int64{u.InputTokens, u.OutputTokens, u.TotalTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(a.Headers)))
	for _, h := range a.Headers {
		b = putString(b, h.Name)
		b = putString(b, h.Value)
	}
	b = binary.AppendUvarint(b, uint64(len(a.Chunks)))
	for _, c := range a.Chunks {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

// putString appends s with its uvarint length.
func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader decodes a field front to back; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errCacheEntry
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items of at least one byte each.
func (r *reader) count() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)-n) {
		r.err = errCacheEntry
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) bytes() []byte {
	l := r.count()
	if r.err != nil {
		return nil
	}
	if l > len(r.b) {
		r.err = errCacheEntry
		return nil
	}
	out := r.b[:l:l]
	r.b = r.b[l:]
	return out
}

func (r *reader) byte1() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errCacheEntry
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// start checks the format byte of a field.
func (r *reader) start() {
	if r.byte1() != cacheFormat && r.err == nil {
		r.err = errCacheEntry
	}
}

// end fails when bytes are left over.
func (r *reader) end() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errCacheEntry
	}
	return r.err
}

// decodeCacheMeta decodes an "m" field of the entry under key; size is
// the entry's stored size.
func decodeCacheMeta(key cache.Key, v []byte, size int64) (cache.Meta, error) {
	r := &reader{b: v}
	r.start()
	m := cache.Meta{Key: key, Size: size}
	m.Created = time.Unix(0, r.varint())
	m.Expires = time.Unix(0, r.varint())
	m.UserPath, m.Provider, m.Model = string(r.bytes()), string(r.bytes()), string(r.bytes())
	return m, r.end()
}

// decodeCacheAnswer decodes an "a" field. The chunks alias v.
func decodeCacheAnswer(v []byte) (cache.Answer, error) {
	r := &reader{b: v}
	r.start()
	var a cache.Answer
	flags := r.byte1()
	a.Stream, a.HasUsage = flags&1 != 0, flags&2 != 0
	a.ProviderType = string(r.bytes())
	u := &a.Usage
	for _, p := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.ReasoningTokens} {
		*p = r.varint()
	}
	if n := r.count(); n > 0 {
		a.Headers = make([]cache.Header, n)
		for i := range a.Headers {
			a.Headers[i] = cache.Header{Name: string(r.bytes()), Value: string(r.bytes())}
		}
	}
	if n := r.count(); n > 0 {
		a.Chunks = make([][]byte, n)
		for i := range a.Chunks {
			a.Chunks[i] = r.bytes()
		}
	}
	return a, r.end()
}
