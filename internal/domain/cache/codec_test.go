package cache

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Stored forms of codecEntry as the stores wrote them before the codec
// moved into this package (hex): Redis keeps the metadata and the answer
// in two fields, each after its format byte; bbolt keeps one value, the
// format byte then both. Stored entries hold these bytes, so they must
// never change.
const (
	storedMetaField   = "01aab4aed5be94b986318a8095eb83e6ba8631092f7465616d2f6170700b6f70656e61692d6d61696e066770742d346f"
	storedAnswerField = "0103066f70656e6169d80408e00480020002020c436f6e74656e742d5479706511746578742f6576656e742d73747265616d0c582d526571756573742d4964057265712d31030a646174613a207b7d0a0a000e646174613a205b444f4e455d0a0a"
	storedOneValue    = "01aab4aed5be94b986318a8095eb83e6ba8631092f7465616d2f6170700b6f70656e61692d6d61696e066770742d346f03066f70656e6169d80408e00480020002020c436f6e74656e742d5479706511746578742f6576656e742d73747265616d0c582d526571756573742d4964057265712d31030a646174613a207b7d0a0a000e646174613a205b444f4e455d0a0a"
)

// codecEntry is the entry of the pinned forms: every field set, one
// empty chunk.
func codecEntry() Entry {
	return Entry{
		Meta: Meta{Created: time.Unix(1767225600, 123456789), Expires: time.Unix(1767229200, 5), UserPath: "/team/app", Provider: "openai-main", Model: "gpt-4o"},
		Answer: Answer{Stream: true, ProviderType: "openai", HasUsage: true,
			Usage:   catalog.Usage{InputTokens: 300, OutputTokens: 4, TotalTokens: 304, CachedInputTokens: 128, ReasoningTokens: 1},
			Headers: []Header{{Name: "Content-Type", Value: "text/event-stream"}, {Name: "X-Request-Id", Value: "req-1"}},
			Chunks:  [][]byte{[]byte("data: {}\n\n"), {}, []byte("data: [DONE]\n\n")}},
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameEntry fails unless got carries every stored field of want.
func sameEntry(t *testing.T, got, want Entry) {
	t.Helper()
	if !got.Created.Equal(want.Created) || !got.Expires.Equal(want.Expires) {
		t.Fatalf("times %v %v, want %v %v", got.Created, got.Expires, want.Created, want.Expires)
	}
	got.Created, got.Expires = want.Created, want.Expires
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n %+v\nwant\n %+v", got, want)
	}
}

// TestCodecPinned: the metadata and the answer encode to the bytes the
// stores wrote, in both layouts, and those bytes decode back to every
// field.
func TestCodecPinned(t *testing.T) {
	e := codecEntry()
	m := AppendMeta([]byte{Format}, &e.Meta)
	a := AppendAnswer([]byte{Format}, &e.Answer)
	one := AppendAnswer(AppendMeta([]byte{Format}, &e.Meta), &e.Answer)
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{{"metadata field", m, storedMetaField}, {"answer field", a, storedAnswerField}, {"one value", one, storedOneValue}} {
		if h := hex.EncodeToString(c.got); h != c.want {
			t.Fatalf("%s:\n got %s\nwant %s", c.name, h, c.want)
		}
	}

	sameEntry(t, decodeStored(t, unhex(t, storedMetaField), unhex(t, storedAnswerField)), e)
	sameEntry(t, decodeStored(t, unhex(t, storedOneValue), nil), e)
}

// decodeStored decodes an entry stored as one value (answer nil: the
// answer follows the metadata) or as a metadata and an answer field, each
// starting with Format.
func decodeStored(t *testing.T, meta, answer []byte) Entry {
	t.Helper()
	cut := func(v []byte) []byte {
		rest, err := CutFormat(v)
		if err != nil {
			t.Fatal(err)
		}
		return rest
	}
	m, rest, err := DecodeMeta(cut(meta))
	if err != nil {
		t.Fatal(err)
	}
	if answer != nil {
		if len(rest) != 0 {
			t.Fatalf("metadata field: %d bytes left", len(rest))
		}
		rest = cut(answer)
	}
	a, err := DecodeAnswer(rest)
	if err != nil {
		t.Fatal(err)
	}
	return Entry{Meta: m, Answer: a}
}

// TestCodecEmptyAnswer: an answer without headers or chunks round-trips
// with nil slices.
func TestCodecEmptyAnswer(t *testing.T) {
	want := Entry{Meta: Meta{Created: time.Unix(5, 0), Expires: time.Unix(6, 0)}}
	v := AppendAnswer(AppendMeta([]byte{Format}, &want.Meta), &want.Answer)
	sameEntry(t, decodeStored(t, v, nil), want)
}

// TestCodecRejectsDamage: cut or altered bytes are ErrMalformed, never a
// panic; an unknown format byte is refused.
func TestCodecRejectsDamage(t *testing.T) {
	e := codecEntry()
	m := AppendMeta(nil, &e.Meta)
	a := AppendAnswer(nil, &e.Answer)
	for i := range len(m) {
		if _, _, err := DecodeMeta(m[:i]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("metadata cut at %d: %v", i, err)
		}
	}
	for i := range len(a) {
		if _, err := DecodeAnswer(a[:i]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("answer cut at %d: %v", i, err)
		}
	}
	if _, err := DecodeAnswer(append(bytes.Clone(a), 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	for _, v := range [][]byte{nil, {}, {Format + 1, 0}} {
		if _, err := CutFormat(v); !errors.Is(err, ErrMalformed) {
			t.Fatalf("format %x: %v", v, err)
		}
	}
}

// TestSizesBoundTheEncoding: MetaSize and AnswerSize are never less than
// what AppendMeta and AppendAnswer add, even with every varint at its
// longest.
func TestSizesBoundTheEncoding(t *testing.T) {
	m := &Meta{Created: time.Unix(0, math.MinInt64), Expires: time.Unix(0, math.MaxInt64), UserPath: "/team/a", Provider: "p", Model: "m"}
	if n := len(AppendMeta(nil, m)); n > MetaSize(m) {
		t.Errorf("meta: %d bytes, size %d", n, MetaSize(m))
	}
	big := int64(math.MinInt64)
	a := &Answer{Stream: true, HasUsage: true, ProviderType: "openai",
		Usage:   catalog.Usage{InputTokens: big, OutputTokens: big, TotalTokens: big, CachedInputTokens: big, CacheWriteInputTokens: big, ReasoningTokens: big},
		Headers: []Header{{Name: "Content-Type", Value: "text/event-stream"}}, Chunks: [][]byte{make([]byte, 300), nil}}
	if n := len(AppendAnswer(nil, a)); n > AnswerSize(a) {
		t.Errorf("answer: %d bytes, size %d", n, AnswerSize(a))
	}
}
