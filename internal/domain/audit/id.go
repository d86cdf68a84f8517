package audit

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	mrand "math/rand/v2"
	"sync"
	"time"
)

// IDLen is the length of an id's text form.
const IDLen = 26

// ID identifies an audit entry or a usage record. Its first 48 bits are the
// creation time in Unix milliseconds and its other 80 bits random, so ids
// sort by time both as bytes and as text. The text form is 26 characters
// of Crockford's base32 (digits and upper-case letters without I, L, O, U).
type ID [16]byte

// crockford is the base32 alphabet of the text form.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// decodeTab maps a text character to its 5-bit value, or 0xFF. Lower case
// is accepted as upper case.
var decodeTab = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < len(crockford); i++ {
		t[crockford[i]] = byte(i)
		if c := crockford[i]; c >= 'A' && c <= 'Z' {
			t[c+'a'-'A'] = byte(i)
		}
	}
	return t
}()

// ErrBadID is returned by ParseID for text that is not an id.
var ErrBadID = errors.New("not a valid id: want 26 characters of Crockford base32")

// Time returns the millisecond the id was made for, in UTC.
func (id ID) Time() time.Time {
	return time.UnixMilli(int64(id.millis())).UTC()
}

// millis returns the id's 48-bit timestamp.
func (id ID) millis() uint64 {
	return uint64(id[0])<<40 | uint64(id[1])<<32 | uint64(id[2])<<24 |
		uint64(id[3])<<16 | uint64(id[4])<<8 | uint64(id[5])
}

// IsZero reports whether id is the zero id.
func (id ID) IsZero() bool { return id == ID{} }

// String returns the 26-character text form.
func (id ID) String() string {
	var b [IDLen]byte
	id.encode(&b)
	return string(b[:])
}

// AppendText appends the text form to b.
func (id ID) AppendText(b []byte) ([]byte, error) {
	var t [IDLen]byte
	id.encode(&t)
	return append(b, t[:]...), nil
}

// encode writes the 128 bits as 26 base32 digits, most significant first
// (the first digit carries the top 3 bits).
func (id ID) encode(dst *[IDLen]byte) {
	hi := binary.BigEndian.Uint64(id[:8])
	lo := binary.BigEndian.Uint64(id[8:])
	for i := IDLen - 1; i >= 0; i-- {
		dst[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

// ParseID parses an id's text form (either letter case).
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != IDLen {
		return id, ErrBadID
	}
	if decodeTab[s[0]] > 7 { // only 3 bits fit in the first digit
		return id, ErrBadID
	}
	var hi, lo uint64
	for i := 0; i < IDLen; i++ {
		v := decodeTab[s[i]]
		if v == 0xFF {
			return id, ErrBadID
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	binary.BigEndian.PutUint64(id[:8], hi)
	binary.BigEndian.PutUint64(id[8:], lo)
	return id, nil
}

// MinID returns the smallest id of t's millisecond: every id made at or
// after t sorts at or after it.
func MinID(t time.Time) ID {
	var id ID
	putMillis(&id, uint64(t.UnixMilli()))
	return id
}

// putMillis stores the 48-bit timestamp.
func putMillis(id *ID, ms uint64) {
	id[0], id[1], id[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	id[3], id[4], id[5] = byte(ms>>16), byte(ms>>8), byte(ms)
}

// IDGenerator makes ids. Ids it makes for the same millisecond increase in
// the order they are made; ids for different milliseconds sort by time, so
// an id made for an earlier time (a clock set back, a test clock) sorts
// before those already made for later ones. It is safe for concurrent use.
type IDGenerator struct {
	mu   sync.Mutex
	last uint64 // millisecond of the previous id; none yet: above 48 bits
	hi   uint16 // random part of the previous id: top 16 bits
	lo   uint64 // and low 64 bits
	rng  *mrand.ChaCha8
}

// NewIDGenerator returns a generator whose random parts come from a
// ChaCha8 stream seeded from the operating system's random source.
func NewIDGenerator() *IDGenerator {
	var seed [32]byte
	_, _ = rand.Read(seed[:]) // never fails on supported platforms
	return &IDGenerator{last: ^uint64(0), rng: mrand.NewChaCha8(seed)}
}

// New returns a fresh id for time t.
func (g *IDGenerator) New(t time.Time) ID {
	ms := uint64(t.UnixMilli()) & (1<<48 - 1)
	g.mu.Lock()
	if ms == g.last {
		g.lo++
		if g.lo == 0 {
			g.hi++
		}
	} else {
		g.last = ms
		r := g.rng.Uint64()
		// The top bit of the random part starts clear, so 2^79 ids fit in
		// one millisecond before the increment could overflow.
		g.hi = uint16(r>>48) & 0x7FFF
		g.lo = g.rng.Uint64()
	}
	hi, lo := g.hi, g.lo
	g.mu.Unlock()
	var id ID
	putMillis(&id, ms)
	binary.BigEndian.PutUint16(id[6:8], hi)
	binary.BigEndian.PutUint64(id[8:], lo)
	return id
}

// defaultIDs backs NewID.
var defaultIDs = NewIDGenerator()

// NewID returns a fresh id for time t from the package's shared generator.
func NewID(t time.Time) ID { return defaultIDs.New(t) }

// MarshalText returns the text form, so an ID is a JSON string; the zero
// id (no id) is the empty string.
func (id ID) MarshalText() ([]byte, error) {
	if id.IsZero() {
		return []byte{}, nil
	}
	return id.AppendText(nil)
}

// UnmarshalText parses the text form; an empty text is the zero id.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
