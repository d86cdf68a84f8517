package translate

import (
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// respWriter appends compact JSON to buf. It tracks only whether the next
// value in the current container needs a leading comma, which is all an
// append-only writer needs when keys and values alternate correctly.
type respWriter struct {
	buf   []byte
	comma bool
}

func (w *respWriter) sep() {
	if w.comma {
		w.buf = append(w.buf, ',')
	}
	w.comma = true
}

func (w *respWriter) open(c byte) {
	w.sep()
	w.buf = append(w.buf, c)
	w.comma = false
}

func (w *respWriter) close(c byte) {
	w.buf = append(w.buf, c)
	w.comma = true
}

func (w *respWriter) obj()         { w.open('{') }
func (w *respWriter) endObj()      { w.close('}') }
func (w *respWriter) arr()         { w.open('[') }
func (w *respWriter) endArr()      { w.close(']') }
func (w *respWriter) null()        { w.sep(); w.buf = append(w.buf, "null"...) }
func (w *respWriter) str(s string) { w.sep(); w.buf = respAppendString(w.buf, s) }

// key writes an object key; the value written next belongs to it.
func (w *respWriter) key(k string) {
	w.sep()
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, k...)
	w.buf = append(w.buf, '"', ':')
	w.comma = false
}

// raw writes a JSON value that is already encoded (a gjson Raw).
func (w *respWriter) raw(r string) { w.sep(); w.buf = append(w.buf, r...) }

// rawBytes is raw for a byte slice.
func (w *respWriter) rawBytes(r []byte) { w.sep(); w.buf = append(w.buf, r...) }

// escaped writes a string whose contents are already JSON-escaped (the
// inside of a JSON string literal, without the quotes).
func (w *respWriter) escaped(s []byte) {
	w.sep()
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '"')
}

func (w *respWriter) int(n int64) { w.sep(); w.buf = strconv.AppendInt(w.buf, n, 10) }

func (w *respWriter) bool(b bool) { w.sep(); w.buf = strconv.AppendBool(w.buf, b) }

// rawOrNull writes r.Raw, or null when r is missing.
func (w *respWriter) rawOrNull(r gjson.Result) {
	if r.Exists() {
		w.raw(r.Raw)
	} else {
		w.null()
	}
}

// respInner returns the escaped contents of a JSON string literal (the
// bytes between its quotes); for a non-string value it escapes the value's
// string form. Concatenating the insides of several string literals gives
// the inside of the literal for the concatenated strings, so streamed
// deltas can be accumulated without decoding them.
func respInner(dst []byte, r gjson.Result) []byte {
	if r.Type == gjson.String && len(r.Raw) >= 2 && r.Raw[0] == '"' {
		return append(dst, r.Raw[1:len(r.Raw)-1]...)
	}
	s := respAppendString(nil, r.String())
	return append(dst, s[1:len(s)-1]...)
}

const respHex = "0123456789abcdef"

// respAppendString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, like encoding/json; HTML characters are left as they are.
func respAppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
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
				dst = append(dst, '\\', 'u', '0', '0', respHex[c>>4], respHex[c&0xf])
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
			dst = append(dst, '\\', 'u', '2', '0', '2', respHex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
