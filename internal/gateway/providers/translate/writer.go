package translate

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Writer builds compact JSON by appending to Buf. It puts the commas
// between members and elements itself: callers open and close containers
// and write keys and values in order. Key names are written as given, so a
// key must need no escaping (every key the translators write is a
// literal). Values taken from gjson are copied as their raw JSON text
// where possible, so most content is never decoded and re-encoded.
type Writer struct {
	// Buf is the JSON written so far (without the borrowed strings when
	// Borrow is set).
	Buf []byte
	// Borrow, when above 0, makes RawStr keep a string whose JSON text
	// has at least this many bytes as a reference into the parsed
	// document instead of copying it into Buf (BorrowMin is a good
	// value): the output is then Parts, and Buf alone is not the JSON.
	// The document must stay unchanged while the parts are in use.
	Borrow int
	// borrowed are the strings kept by reference, in order, each with
	// the length of Buf where it goes.
	borrowed []borrowedStr
	// comma says the next value in the open container needs a leading
	// comma.
	comma bool
}

// BorrowMin is the length from which a Writer should borrow strings
// (Writer.Borrow): below it a copy costs less than a part.
const BorrowMin = 512

// borrowedStr is a string kept by reference, written at offset at of Buf.
type borrowedStr struct {
	at  int
	raw string
}

// Sep writes the comma the next value needs, if any. A caller that writes
// a value's bytes into Buf itself calls Sep first.
func (w *Writer) Sep() {
	if w.comma {
		w.Buf = append(w.Buf, ',')
	}
	w.comma = true
}

// Reset empties the writer, keeping Buf's storage.
func (w *Writer) Reset() {
	w.Buf = w.Buf[:0]
	w.borrowed = w.borrowed[:0]
	w.comma = false
}

func (w *Writer) open(c byte) {
	w.Sep()
	w.Buf = append(w.Buf, c)
	w.comma = false
}

func (w *Writer) close(c byte) {
	w.Buf = append(w.Buf, c)
	w.comma = true
}

// Obj opens an object.
func (w *Writer) Obj() { w.open('{') }

// EndObj closes an object.
func (w *Writer) EndObj() { w.close('}') }

// Arr opens an array.
func (w *Writer) Arr() { w.open('[') }

// EndArr closes an array.
func (w *Writer) EndArr() { w.close(']') }

// Key writes an object member name; the value written next is its value.
// k is written unescaped.
func (w *Writer) Key(k string) {
	w.Sep()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, k...)
	w.Buf = append(w.Buf, '"', ':')
	w.comma = false
}

// Str writes s as a JSON string.
func (w *Writer) Str(s string) {
	w.Sep()
	w.Buf = AppendString(w.Buf, s)
}

// StrBytes writes s as a JSON string.
func (w *Writer) StrBytes(s []byte) {
	w.Sep()
	// The conversion does not allocate: the compiler passes the bytes
	// through when the string does not escape.
	w.Buf = AppendString(w.Buf, string(s))
}

// Raw writes r, which must be one complete JSON value.
func (w *Writer) Raw(r string) {
	w.Sep()
	w.Buf = append(w.Buf, r...)
}

// RawBytes writes r, which must be one complete JSON value.
func (w *Writer) RawBytes(r []byte) {
	w.Sep()
	w.Buf = append(w.Buf, r...)
}

// Escaped writes a JSON string whose content e is already escaped (the
// inside of a string literal, without its quotes).
func (w *Writer) Escaped(e []byte) {
	w.Sep()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, e...)
	w.Buf = append(w.Buf, '"')
}

// RawStr writes a gjson value as a JSON string: a string's JSON text is
// copied unchanged, any other value is written as its string form.
func (w *Writer) RawStr(r gjson.Result) {
	if r.Type != gjson.String {
		w.Str(r.String())
		return
	}
	if w.Borrow > 0 && len(r.Raw) >= w.Borrow {
		w.Sep()
		w.borrowed = append(w.borrowed, borrowedStr{at: len(w.Buf), raw: r.Raw})
		return
	}
	w.Raw(r.Raw)
}

// Parts returns the JSON written as consecutive pieces: the runs of Buf
// between the borrowed strings, and those strings, which point into the
// parsed document and must not be modified. Without borrowed strings it
// is Buf alone.
func (w *Writer) Parts() [][]byte {
	parts := make([][]byte, 0, 2*len(w.borrowed)+1)
	prev := 0
	for _, b := range w.borrowed {
		if b.at > prev {
			parts = append(parts, w.Buf[prev:b.at])
		}
		parts = append(parts, unsafe.Slice(unsafe.StringData(b.raw), len(b.raw)))
		prev = b.at
	}
	if prev < len(w.Buf) || len(parts) == 0 {
		parts = append(parts, w.Buf[prev:])
	}
	return parts
}

// Int writes n.
func (w *Writer) Int(n int64) {
	w.Sep()
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
}

// Bool writes v.
func (w *Writer) Bool(v bool) {
	w.Sep()
	w.Buf = strconv.AppendBool(w.Buf, v)
}

// Null writes null.
func (w *Writer) Null() { w.Raw("null") }

// KeyStr writes the member k with the string value v.
func (w *Writer) KeyStr(k, v string) {
	w.Key(k)
	w.Str(v)
}

// KeyRaw writes the member k with the raw JSON value v.
func (w *Writer) KeyRaw(k, v string) {
	w.Key(k)
	w.Raw(v)
}

// KeyInt writes the member k with the number v.
func (w *Writer) KeyInt(k string, v int64) {
	w.Key(k)
	w.Int(v)
}

// RawOr writes v's JSON text, or def (raw JSON) when v is missing.
func (w *Writer) RawOr(v gjson.Result, def string) {
	if v.Exists() {
		w.Raw(v.Raw)
	} else {
		w.Raw(def)
	}
}

// RawOrNull writes v's JSON text, or null when v is missing.
func (w *Writer) RawOrNull(v gjson.Result) { w.RawOr(v, "null") }

// Fields writes pre-rendered, comma-separated "key":value members into the
// open object; nothing when frag is empty.
func (w *Writer) Fields(frag []byte) {
	if len(frag) > 0 {
		w.Sep()
		w.Buf = append(w.Buf, frag...)
	}
}

// Mark is a position of a Writer to roll back to.
type Mark struct {
	n        int
	borrowed int
	comma    bool
}

// Mark records the writer's position.
func (w *Writer) Mark() Mark { return Mark{n: len(w.Buf), borrowed: len(w.borrowed), comma: w.comma} }

// Rollback returns the writer to m, dropping everything written since.
func (w *Writer) Rollback(m Mark) {
	w.Buf = w.Buf[:m.n]
	w.borrowed = w.borrowed[:m.borrowed]
	w.comma = m.comma
}

// Members starts a run of members written outside any object, a fragment
// that Fields later puts into one: the next member needs no comma.
func (w *Writer) Members() { w.comma = false }

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does; U+2028 and U+2029 are escaped so the
// output is also safe inside JavaScript; HTML characters are left as they
// are.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends s escaped for use inside a JSON string literal,
// without the quotes.
func AppendEscaped(dst []byte, s string) []byte {
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
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
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
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// AppendInner appends the escaped contents of a JSON string value (the
// bytes between its quotes); for any other value it escapes the value's
// string form. The insides of several string literals concatenated are
// the inside of the literal of the concatenated strings, so streamed
// deltas can be accumulated without decoding them.
func AppendInner(dst []byte, r gjson.Result) []byte {
	if r.Type == gjson.String && len(r.Raw) >= 2 && r.Raw[0] == '"' {
		return append(dst, r.Raw[1:len(r.Raw)-1]...)
	}
	return AppendEscaped(dst, r.String())
}

// RawInner returns the escaped contents of a JSON string value, without
// its quotes; "" for any other value.
func RawInner(r gjson.Result) string {
	if r.Type != gjson.String || len(r.Raw) < 2 || r.Raw[0] != '"' {
		return ""
	}
	return r.Raw[1 : len(r.Raw)-1]
}
