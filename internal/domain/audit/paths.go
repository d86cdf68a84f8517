package audit

import "strings"

// UnderPath reports whether user path path is prefix or lies below it:
// "/team" covers "/team" and "/team/app" but not "/team-alpha"; "/" covers
// every path.
func UnderPath(path, prefix string) bool {
	if prefix == "/" || path == prefix {
		return true
	}
	return len(path) > len(prefix) && path[len(prefix)] == '/' && strings.HasPrefix(path, prefix)
}

// ChildOf returns the direct child of prefix that path lies in or below
// ("/customers", "/customers/alice/app" → "/customers/alice"); ok is false
// when path is prefix itself or not below it.
func ChildOf(prefix, path string) (child string, ok bool) {
	if path == prefix || !UnderPath(path, prefix) {
		return "", false
	}
	base := len(prefix)
	if prefix != "/" {
		base++ // skip the separating slash
	} else {
		base = 1
	}
	if i := strings.IndexByte(path[base:], '/'); i >= 0 {
		return path[:base+i], true
	}
	return path, true
}
