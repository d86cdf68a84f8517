package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/zeebo/blake3"
)

// Key identifies one cached answer: a 256-bit hash of what the request
// is, SHA-256 up to blake3From bytes of canonical text and BLAKE3 from
// there (faster on long bodies, slower on short ones).
type Key [32]byte

// blake3From is the canonical length from which keys are BLAKE3 hashes.
const blake3From = 8 << 10

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

// ErrNotJSON is returned by KeyOf for a body that is not one well-formed
// JSON object.
var ErrNotJSON = errors.New("cache: request body is not a JSON object")

// keyState is the reusable state of KeyOf.
type keyState struct {
	buf   bytes.Buffer
	spans []span
}

// keyStates recycles the buffers keys are computed in.
var keyStates = sync.Pool{New: func() any { return new(keyState) }}

// KeyOf returns the key of a request with the JSON object body: the hash
// of r's fields and the body in canonical form (object members sorted by
// key, no white space between tokens; strings and numbers as written).
func KeyOf(r Request, body []byte) (Key, error) {
	st := keyStates.Get().(*keyState)
	defer keyStates.Put(st)
	buf := &st.buf
	buf.Reset()
	buf.Grow(len(body) + 128)
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
	var err error
	if st.spans, err = canonical(buf, body, st.spans); err != nil {
		return Key{}, err
	}
	if buf.Len() < blake3From {
		return sha256.Sum256(buf.Bytes()), nil
	}
	return blake3.Sum256(buf.Bytes()), nil
}
