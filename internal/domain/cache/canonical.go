package cache

import (
	"bytes"
	"errors"
	"slices"
)

// maxDepth bounds the nesting of a body the cache keys; a deeper body is
// not cached.
const maxDepth = 256

var errSyntax = errors.New("cache: malformed JSON")

// span is one member of an object: its key (with the quotes, as written)
// and its value, as offsets into the source.
type span struct {
	keyStart, keyEnd, valStart, valEnd int
}

// canonicalizer writes a JSON text in canonical form: object members
// sorted by their key as written, no white space between tokens, strings
// and numbers as written. It checks the grammar as it goes: a malformed
// text is an error, never a key.
type canonicalizer struct {
	src   []byte
	out   *bytes.Buffer
	spans []span // members of the objects being written, innermost last
}

// skipSpace returns the index of the first non-space byte at or after i.
func (c *canonicalizer) skipSpace(i int) int {
	for i < len(c.src) {
		switch c.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value writes the value starting at i (not white space) and returns the
// index after it; with write false it only finds that index.
func (c *canonicalizer) value(i int, write bool, depth int) (int, error) {
	if i >= len(c.src) {
		return 0, errSyntax
	}
	if depth > maxDepth {
		return 0, errSyntax
	}
	switch b := c.src[i]; {
	case b == '{':
		return c.object(i, write, depth)
	case b == '[':
		return c.array(i, write, depth)
	case b == '"':
		end, err := c.str(i)
		if err == nil && write {
			c.out.Write(c.src[i:end])
		}
		return end, err
	case b == '-' || (b >= '0' && b <= '9'):
		end := i + 1
		for end < len(c.src) && numberByte(c.src[end]) {
			end++
		}
		if write {
			c.out.Write(c.src[i:end])
		}
		return end, nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(c.src[i:], []byte(lit)) {
				if write {
					c.out.WriteString(lit)
				}
				return i + len(lit), nil
			}
		}
		return 0, errSyntax
	}
}

func numberByte(b byte) bool {
	return (b >= '0' && b <= '9') || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-'
}

// str returns the index after the string starting at i.
func (c *canonicalizer) str(i int) (int, error) {
	j := i + 1
	for {
		q := bytes.IndexByte(c.src[j:], '"')
		if q < 0 {
			return 0, errSyntax
		}
		bs := bytes.IndexByte(c.src[j:j+q], '\\')
		if bs < 0 {
			return j + q + 1, nil
		}
		// An escape before the quote: step over it and look again.
		k := j + bs + 1
		if k >= len(c.src) {
			return 0, errSyntax
		}
		switch c.src[k] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j = k + 1
		case 'u':
			if k+4 >= len(c.src) {
				return 0, errSyntax
			}
			for _, h := range c.src[k+1 : k+5] {
				if !((h >= '0' && h <= '9') || (h|0x20 >= 'a' && h|0x20 <= 'f')) {
					return 0, errSyntax
				}
			}
			j = k + 5
		default:
			return 0, errSyntax
		}
	}
}

// array writes (or skips) the array starting at i.
func (c *canonicalizer) array(i int, write bool, depth int) (int, error) {
	if write {
		c.out.WriteByte('[')
	}
	i = c.skipSpace(i + 1)
	if i < len(c.src) && c.src[i] == ']' {
		if write {
			c.out.WriteByte(']')
		}
		return i + 1, nil
	}
	for n := 0; ; n++ {
		if n > 0 && write {
			c.out.WriteByte(',')
		}
		end, err := c.value(i, write, depth+1)
		if err != nil {
			return 0, err
		}
		i = c.skipSpace(end)
		if i >= len(c.src) {
			return 0, errSyntax
		}
		switch c.src[i] {
		case ',':
			i = c.skipSpace(i + 1)
		case ']':
			if write {
				c.out.WriteByte(']')
			}
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// object writes the object starting at i with its members sorted by key,
// or skips it.
func (c *canonicalizer) object(i int, write bool, depth int) (int, error) {
	base := len(c.spans)
	defer func() { c.spans = c.spans[:base] }()
	i = c.skipSpace(i + 1)
	if i < len(c.src) && c.src[i] == '}' {
		if write {
			c.out.WriteString("{}")
		}
		return i + 1, nil
	}
	for {
		if i >= len(c.src) || c.src[i] != '"' {
			return 0, errSyntax
		}
		keyEnd, err := c.str(i)
		if err != nil {
			return 0, err
		}
		colon := c.skipSpace(keyEnd)
		if colon >= len(c.src) || c.src[colon] != ':' {
			return 0, errSyntax
		}
		vs := c.skipSpace(colon + 1)
		ve, err := c.value(vs, false, depth+1)
		if err != nil {
			return 0, err
		}
		c.spans = append(c.spans, span{i, keyEnd, vs, ve})
		i = c.skipSpace(ve)
		if i >= len(c.src) {
			return 0, errSyntax
		}
		if c.src[i] == '}' {
			break
		}
		if c.src[i] != ',' {
			return 0, errSyntax
		}
		i = c.skipSpace(i + 1)
	}
	end := i + 1
	if !write {
		return end, nil
	}
	slices.SortStableFunc(c.spans[base:], func(a, b span) int {
		return bytes.Compare(c.src[a.keyStart:a.keyEnd], c.src[b.keyStart:b.keyEnd])
	})
	c.out.WriteByte('{')
	for k := base; k < len(c.spans); k++ {
		s := c.spans[k] // re-read: writing a value appends to c.spans
		if k > base {
			c.out.WriteByte(',')
		}
		c.out.Write(c.src[s.keyStart:s.keyEnd])
		c.out.WriteByte(':')
		if _, err := c.value(s.valStart, true, depth+1); err != nil {
			return 0, err
		}
	}
	c.out.WriteByte('}')
	return end, nil
}

// canonical writes the JSON object body to out in canonical form; a
// body that is not one well-formed JSON object is an error.
func canonical(out *bytes.Buffer, body []byte, spans []span) ([]span, error) {
	c := canonicalizer{src: body, out: out, spans: spans[:0]}
	i := c.skipSpace(0)
	if i >= len(body) || body[i] != '{' {
		return c.spans, ErrNotJSON
	}
	end, err := c.value(i, true, 0)
	if err != nil {
		return c.spans, ErrNotJSON
	}
	if c.skipSpace(end) != len(body) {
		return c.spans, ErrNotJSON
	}
	return c.spans, nil
}
