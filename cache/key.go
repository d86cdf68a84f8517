package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"

	"github.com/tidwall/gjson"
)

// Key identifies one cached answer: the SHA-256 of what the request is.
type Key [sha256.Size]byte

// String returns the key in hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Request is what a key covers besides the body.
type Request struct {
	// Endpoint is the API path the client called (/v1/chat/completions).
	Endpoint string
	// Provider is the provider instance the model resolves to.
	Provider string
	// Model is the upstream model id it resolves to.
	Model string
	// Stream reports whether the client asked for a stream.
	Stream bool
	// UserPath is the caller's user path; empty when entries are shared
	// across user paths (scope global).
	UserPath string
}

// ErrNotJSON is returned by KeyOf for a body that is not a JSON object.
var ErrNotJSON = errors.New("cache: request body is not a JSON object")

// keyBuffers recycles the buffers keys are computed in.
var keyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// KeyOf returns the key of a request with the JSON object body: the hash
// of r's fields and the body in canonical form (object keys sorted, no
// insignificant white space; strings and numbers as written).
func KeyOf(r Request, body []byte) (Key, error) {
	if !gjson.ValidBytes(body) {
		return Key{}, ErrNotJSON
	}
	v := gjson.ParseBytes(body)
	if !v.IsObject() {
		return Key{}, ErrNotJSON
	}
	buf := keyBuffers.Get().(*bytes.Buffer)
	defer keyBuffers.Put(buf)
	buf.Reset()
	buf.WriteString("modelgate-cache-v1\x00")
	for _, s := range [...]string{r.Endpoint, r.Provider, r.Model, r.UserPath} {
		buf.WriteString(s)
		buf.WriteByte(0)
	}
	if r.Stream {
		buf.WriteByte('s')
	} else {
		buf.WriteByte('n')
	}
	buf.WriteByte(0)
	canonical(buf, v)
	return sha256.Sum256(buf.Bytes()), nil
}

// member is one member of an object being sorted.
type member struct {
	key   string
	value gjson.Result
}

// members recycles the member slices of canonical.
var members = sync.Pool{New: func() any { s := make([]member, 0, 16); return &s }}

// canonical writes v to buf with every object's members sorted by key and
// no white space between tokens.
func canonical(buf *bytes.Buffer, v gjson.Result) {
	switch {
	case v.IsObject():
		sp := members.Get().(*[]member)
		ms := (*sp)[:0]
		v.ForEach(func(k, val gjson.Result) bool {
			ms = append(ms, member{key: k.Str, value: val})
			return true
		})
		slices.SortStableFunc(ms, func(a, b member) int {
			switch {
			case a.key < b.key:
				return -1
			case a.key > b.key:
				return 1
			}
			return 0
		})
		buf.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, m.key)
			buf.WriteByte(':')
			canonical(buf, m.value)
		}
		buf.WriteByte('}')
		clear(ms)
		*sp = ms[:0]
		members.Put(sp)
	case v.IsArray():
		buf.WriteByte('[')
		first := true
		v.ForEach(func(_, val gjson.Result) bool {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			canonical(buf, val)
			return true
		})
		buf.WriteByte(']')
	case v.Type == gjson.String:
		writeString(buf, v.Str)
	default:
		buf.WriteString(v.Raw)
	}
}

// writeString writes s as a JSON string with a fixed escaping, so the
// same text escaped differently by two clients gives the same key.
func writeString(buf *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		default:
			buf.WriteByte(c)
		}
	}
	buf.WriteByte('"')
}
