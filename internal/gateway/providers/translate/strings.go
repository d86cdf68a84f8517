package translate

import (
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

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
