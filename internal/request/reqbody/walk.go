package reqbody

import (
	"bytes"
	"errors"
	"unsafe"
)

// Member returns the raw value of the member name of the JSON object obj
// (the last one, when it repeats), or nil when obj is not an object or has
// no such member. Nested values are skipped, not parsed.
func Member(obj []byte, name string) []byte {
	var found []byte
	_ = eachMember(obj, func(key, val []byte) error {
		if KeyName(key) == name {
			found = val
		}
		return nil
	})
	return found
}

// KeyName is the name a member's raw quoted key spells, unescaped
// ("mod\u0065l" is "model"). A key without escapes (every key clients and
// providers send) shares the key's bytes: the name is for comparing, not
// for keeping.
func KeyName(quoted []byte) string {
	k := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(k, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(k), len(k))
	}
	return unquote(quoted)
}

// Members calls fn with the raw key (quotes and escapes as sent) and the
// raw value of each member of the JSON object obj, in order, until fn
// returns false. It does nothing when obj is not an object and stops at
// the first malformed member. Nested values are skipped, not parsed.
func Members(obj []byte, fn func(quotedKey, val []byte) bool) {
	_ = eachMember(obj, func(key, val []byte) error {
		if !fn(key, val) {
			return errStop
		}
		return nil
	})
}

// errStop ends a walk that its callback stopped; it never leaves the
// package.
var errStop = errors.New("stopped")

// Elements calls fn with the raw value of each element of the JSON array
// arr, in order, until fn returns false. It does nothing when arr is not
// an array and stops at the first malformed element.
func Elements(arr []byte, fn func(elem []byte) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipSpace(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		end := valueEnd(arr, i)
		if end < 0 || !fn(arr[i:end]) {
			return
		}
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
}

// Text returns the text of the raw JSON string value raw, unescaped, and
// whether raw is a string at all. A string without escapes is copied
// without parsing.
func Text(raw []byte) (string, bool) {
	if !IsString(raw) {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	return unquote(raw), true
}

// IsString reports whether raw is a JSON string value.
func IsString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' }

// IsArray reports whether raw is a JSON array value.
func IsArray(raw []byte) bool { return len(raw) > 0 && raw[0] == '[' }
