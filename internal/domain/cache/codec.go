package cache

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"
)

// Format is the format byte of a stored entry: a store writes it before
// the encoded metadata and before the encoded answer, or once before both
// when it keeps them in one value (metadata first), so that a later
// format can be told apart.
const Format byte = 1

// ErrMalformed reports stored entry bytes that do not decode.
var ErrMalformed = errors.New("cache: malformed stored entry")

// CutFormat checks that b starts with Format and returns the bytes after
// it; anything else is ErrMalformed.
func CutFormat(b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != Format {
		return nil, ErrMalformed
	}
	return b[1:], nil
}

// AppendMeta appends the binary form of the stored fields of m to b:
// Created and Expires as Unix nanoseconds (varints), then UserPath,
// Provider and Model, each as its uvarint length and bytes. Key and Size
// are not encoded: the store knows them.
func AppendMeta(b []byte, m *Meta) []byte {
	b = slices.Grow(b, MetaSize(m))
	b = binary.AppendVarint(b, m.Created.UnixNano())
	b = binary.AppendVarint(b, m.Expires.UnixNano())
	for _, s := range [...]string{m.UserPath, m.Provider, m.Model} {
		b = appendString(b, s)
	}
	return b
}

// AppendAnswer appends the binary form of a to b: a flags byte (1 Stream,
// 2 HasUsage), ProviderType as its uvarint length and bytes, the six usage
// counts (input, output, total, cached input, cache write input,
// reasoning; varints), the headers (uvarint count, then name and value as
// strings) and the chunks (uvarint count, then each as its uvarint length
// and bytes).
func AppendAnswer(b []byte, a *Answer) []byte {
	b = slices.Grow(b, AnswerSize(a))
	var flags byte
	if a.Stream {
		flags |= 1
	}
	if a.HasUsage {
		flags |= 2
	}
	b = append(b, flags)
	b = appendString(b, a.ProviderType)
	u := &a.Usage
	for _, v := range [...]int64{u.InputTokens, u.OutputTokens, u.TotalTokens, u.CachedInputTokens, u.CacheWriteInputTokens, u.ReasoningTokens} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(a.Headers)))
	for _, h := range a.Headers {
		b = appendString(b, h.Name)
		b = appendString(b, h.Value)
	}
	b = binary.AppendUvarint(b, uint64(len(a.Chunks)))
	for _, c := range a.Chunks {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

// MetaSize is the most bytes AppendMeta adds for m (every varint at its
// longest), so a store can size one buffer for a whole entry.
func MetaSize(m *Meta) int {
	return 5*binary.MaxVarintLen64 + len(m.UserPath) + len(m.Provider) + len(m.Model)
}

// AnswerSize is the most bytes AppendAnswer adds for a (every varint at
// its longest).
func AnswerSize(a *Answer) int {
	n := 1 + 9*binary.MaxVarintLen64 + len(a.ProviderType)
	for _, h := range a.Headers {
		n += 2*binary.MaxVarintLen64 + len(h.Name) + len(h.Value)
	}
	for _, c := range a.Chunks {
		n += binary.MaxVarintLen64 + len(c)
	}
	return n
}

// appendString appends s with its uvarint length.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// DecodeMeta reads the metadata AppendMeta wrote at the front of b and
// returns it with the bytes after it (the answer, in a store that keeps
// both in one value). Key and Size are left zero for the store to fill.
func DecodeMeta(b []byte) (Meta, []byte, error) {
	r := &decoder{b: b}
	var m Meta
	m.Created = time.Unix(0, r.varint())
	m.Expires = time.Unix(0, r.varint())
	m.UserPath, m.Provider, m.Model = r.str(), r.str(), r.str()
	if r.err != nil {
		return Meta{}, nil, r.err
	}
	return m, r.b, nil
}

// DecodeAnswer decodes an answer AppendAnswer wrote that fills b
// exactly; bytes left over are ErrMalformed. The chunks alias b.
func DecodeAnswer(b []byte) (Answer, error) {
	r := &decoder{b: b}
	var a Answer
	flags := r.byte1()
	a.Stream, a.HasUsage = flags&1 != 0, flags&2 != 0
	a.ProviderType = r.str()
	u := &a.Usage
	for _, p := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.ReasoningTokens} {
		*p = r.varint()
	}
	if n := r.count(2); n > 0 {
		a.Headers = make([]Header, n)
		for i := range a.Headers {
			a.Headers[i] = Header{Name: r.str(), Value: r.str()}
		}
	}
	if n := r.count(1); n > 0 {
		a.Chunks = make([][]byte, n)
		for i := range a.Chunks {
			a.Chunks[i] = r.bytes()
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = ErrMalformed
	}
	if r.err != nil {
		return Answer{}, r.err
	}
	return a, nil
}
