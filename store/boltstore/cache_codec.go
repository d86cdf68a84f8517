package boltstore

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/modelgate/modelgate/cache"
)

// cacheVersion is the first byte of a stored cache entry.
const cacheVersion = 1

// errCacheRecord reports a stored cache entry that does not decode.
var errCacheRecord = errors.New("cache store: malformed entry")

// encodeCacheEntry returns the stored form of e: the version, the
// metadata (created and expires as Unix nanoseconds, user path, provider,
// model), then the answer (flags, provider type, usage, headers, chunks).
// Lengths and counts are uvarints, so Scan reads the metadata without
// touching the answer.
func encodeCacheEntry(e *cache.Entry) []byte {
	n := 64 + len(e.UserPath) + len(e.Provider) + len(e.Model) + len(e.ProviderType)
	for _, h := range e.Headers {
		n += 8 + len(h.Name) + len(h.Value)
	}
	for _, c := range e.Chunks {
		n += 5 + len(c)
	}
	b := make([]byte, 0, n)
	b = append(b, cacheVersion)
	b = binary.AppendVarint(b, e.Created.UnixNano())
	b = binary.AppendVarint(b, e.Expires.UnixNano())
	b = appendString(b, e.UserPath)
	b = appendString(b, e.Provider)
	b = appendString(b, e.Model)
	var flags byte
	if e.Stream {
		flags |= 1
	}
	if e.HasUsage {
		flags |= 2
	}
	b = append(b, flags)
	b = appendString(b, e.ProviderType)
	u := e.Usage
	for _, v := range [...]int64{u.InputTokens, u.OutputTokens, u.TotalTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Headers)))
	for _, h := range e.Headers {
		b = appendString(b, h.Name)
		b = appendString(b, h.Value)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Chunks)))
	for _, c := range e.Chunks {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// cacheDecoder reads a stored entry front to back; the first failure
// sticks.
type cacheDecoder struct {
	b   []byte
	err error
}

func (d *cacheDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCacheRecord
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *cacheDecoder) bytes() []byte {
	if d.err != nil {
		return nil
	}
	l, n := binary.Uvarint(d.b)
	if n <= 0 || l > uint64(len(d.b)-n) {
		d.err = errCacheRecord
		return nil
	}
	out := d.b[n : n+int(l) : n+int(l)]
	d.b = d.b[n+int(l):]
	return out
}

func (d *cacheDecoder) str() string { return string(d.bytes()) }

func (d *cacheDecoder) byte1() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCacheRecord
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// count reads a count of items that take at least min bytes each.
func (d *cacheDecoder) count(min int) int {
	if d.err != nil {
		return 0
	}
	l, n := binary.Uvarint(d.b)
	if n <= 0 || l > uint64(len(d.b)/min+1) {
		d.err = errCacheRecord
		return 0
	}
	d.b = d.b[n:]
	return int(l)
}

// decodeCacheMeta reads the metadata of the entry stored under key with
// value v and returns the decoder positioned at the answer.
func decodeCacheMeta(key, v []byte) (cache.Meta, *cacheDecoder, error) {
	var m cache.Meta
	if len(key) != len(m.Key) || len(v) == 0 || v[0] != cacheVersion {
		return m, nil, errCacheRecord
	}
	copy(m.Key[:], key)
	m.Size = int64(len(key) + len(v))
	d := &cacheDecoder{b: v[1:]}
	m.Created = time.Unix(0, d.varint())
	m.Expires = time.Unix(0, d.varint())
	m.UserPath, m.Provider, m.Model = d.str(), d.str(), d.str()
	return m, d, d.err
}

// decodeCacheEntry decodes a whole stored entry. The chunks alias v.
func decodeCacheEntry(key, v []byte) (cache.Entry, error) {
	m, d, err := decodeCacheMeta(key, v)
	if err != nil {
		return cache.Entry{}, err
	}
	e := cache.Entry{Meta: m}
	flags := d.byte1()
	e.Stream, e.HasUsage = flags&1 != 0, flags&2 != 0
	e.ProviderType = d.str()
	u := &e.Usage
	for _, p := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.ReasoningTokens} {
		*p = d.varint()
	}
	if nh := d.count(2); nh > 0 {
		e.Headers = make([]cache.Header, nh)
		for i := range e.Headers {
			e.Headers[i] = cache.Header{Name: d.str(), Value: d.str()}
		}
	}
	if nc := d.count(1); nc > 0 {
		e.Chunks = make([][]byte, nc)
		for i := range e.Chunks {
			e.Chunks[i] = d.bytes()
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCacheRecord
	}
	return e, d.err
}
