package translate

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// jsonOut builds compact JSON by appending to a byte slice. It inserts the
// commas between members and elements itself; callers only open, close and
// write values. Strings taken from gjson are copied as their raw JSON text
// where possible, so most content is never decoded and re-encoded.
type jsonOut struct {
	b        []byte
	stack    []bool // per open container: it already has a member
	afterKey bool
}

func (w *jsonOut) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.stack); n > 0 {
		if w.stack[n-1] {
			w.b = append(w.b, ',')
		} else {
			w.stack[n-1] = true
		}
	}
}

// key writes an object member name; the next value written is its value.
func (w *jsonOut) key(k string) {
	w.sep()
	w.b = quoteJSON(w.b, k)
	w.b = append(w.b, ':')
	w.afterKey = true
}

func (w *jsonOut) open(c byte) {
	w.sep()
	w.b = append(w.b, c)
	w.stack = append(w.stack, false)
}

func (w *jsonOut) close(c byte) {
	w.b = append(w.b, c)
	w.stack = w.stack[:len(w.stack)-1]
}

func (w *jsonOut) obj()    { w.open('{') }
func (w *jsonOut) endObj() { w.close('}') }
func (w *jsonOut) arr()    { w.open('[') }
func (w *jsonOut) endArr() { w.close(']') }

// str writes s as a JSON string.
func (w *jsonOut) str(s string) {
	w.sep()
	w.b = quoteJSON(w.b, s)
}

// strBytes writes s as a JSON string.
func (w *jsonOut) strBytes(s []byte) {
	w.sep()
	w.b = quoteJSONBytes(w.b, s)
}

// raw writes r, which must be one complete JSON value.
func (w *jsonOut) raw(r string) {
	w.sep()
	w.b = append(w.b, r...)
}

// escapedStr writes a JSON string whose content e is already escaped.
func (w *jsonOut) escapedStr(e []byte) {
	w.sep()
	w.b = append(w.b, '"')
	w.b = append(w.b, e...)
	w.b = append(w.b, '"')
}

// rawStr writes a gjson string value, copying its JSON text unchanged.
func (w *jsonOut) rawStr(r gjson.Result) {
	if r.Type != gjson.String {
		w.str(r.String())
		return
	}
	w.raw(r.Raw)
}

func (w *jsonOut) int(n int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, n, 10)
}

func (w *jsonOut) boolean(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jsonOut) null() { w.raw("null") }

// keyStr, keyRaw and keyInt write one member.
func (w *jsonOut) keyStr(k, v string) { w.key(k); w.str(v) }
func (w *jsonOut) keyRaw(k, v string) { w.key(k); w.raw(v) }
func (w *jsonOut) keyInt(k string, v int64) {
	w.key(k)
	w.int(v)
}

const quoteHex = "0123456789abcdef"

// quoteJSON appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does; U+2028 and U+2029 are escaped so the
// output is also safe inside JavaScript.
func quoteJSON(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = escapeJSON(dst, s)
	return append(dst, '"')
}

// escapeJSON appends s escaped for use inside a JSON string literal,
// without the quotes.
func escapeJSON(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', quoteHex[c>>4], quoteHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', quoteHex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// quoteJSONBytes is quoteJSON for a byte slice.
func quoteJSONBytes(dst, s []byte) []byte {
	// The conversion does not allocate: the compiler passes the bytes
	// through when the string does not escape.
	return quoteJSON(dst, string(s))
}

// present reports whether a request field was given with a non-null value.
func isSet(r gjson.Result) bool {
	return r.Exists() && r.Type != gjson.Null
}

// compactJSON returns the JSON value raw without insignificant whitespace,
// returning raw itself when it has none.
func compactJSON(raw string) string {
	var out []byte
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			if c == '\\' && i+1 < len(raw) {
				if out != nil {
					out = append(out, c, raw[i+1])
				}
				i++
				continue
			}
			if c == '"' {
				inStr = false
			}
		} else {
			switch c {
			case '"':
				inStr = true
			case ' ', '\t', '\n', '\r':
				if out == nil {
					out = make([]byte, 0, len(raw))
					out = append(out, raw[:i]...)
				}
				continue
			}
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return raw
	}
	return string(out)
}

// sanitizeToolID makes id acceptable as an Anthropic tool_use id
// (^[a-zA-Z0-9_-]+$) by replacing every other byte with '_'. The mapping is
// deterministic, so an assistant tool call and the tool result answering it
// keep matching ids.
func sanitizeToolID(id string) string {
	ok := true
	for i := 0; i < len(id); i++ {
		if !isToolIDByte(id[i]) {
			ok = false
			break
		}
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !isToolIDByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

func isToolIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// newID returns prefix followed by 24 random hex digits, for upstream
// objects that came without an id.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// jsonMark is a position in a jsonOut to roll back to.
type jsonMark struct {
	n, depth      int
	top, afterKey bool
}

// mark records the writer's position.
func (w *jsonOut) mark() jsonMark {
	m := jsonMark{n: len(w.b), depth: len(w.stack), afterKey: w.afterKey}
	if m.depth > 0 {
		m.top = w.stack[m.depth-1]
	}
	return m
}

// reset rolls the writer back to m, dropping everything written since.
func (w *jsonOut) reset(m jsonMark) {
	w.b = w.b[:m.n]
	w.stack = w.stack[:m.depth]
	if m.depth > 0 {
		w.stack[m.depth-1] = m.top
	}
	w.afterKey = m.afterKey
}

// parseBorrowed parses b without copying it. The results point into b: use
// them only while b is unchanged, and copy any string that must outlive
// the call (stream converters do not own the event data they are fed).
func parseBorrowed(b []byte) gjson.Result {
	if len(b) == 0 {
		return gjson.Result{}
	}
	return gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
}
