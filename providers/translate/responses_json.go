package translate

import (
	"strconv"

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
	return escapeJSON(dst, r.String())
}

// respAppendString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, like encoding/json; HTML characters are left as they are.
func respAppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = escapeJSON(dst, s)
	return append(dst, '"')
}

// firstRaw writes the first non-empty raw JSON value of upstream and echo,
// or def as a string when both are empty.
func (w *respWriter) firstRaw(upstream, echo []byte, def string) {
	switch {
	case len(upstream) > 0:
		w.rawBytes(upstream)
	case len(echo) > 0:
		w.rawBytes(echo)
	default:
		w.str(def)
	}
}
