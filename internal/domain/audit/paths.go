package audit

import (
	"strings"

	"github.com/modelgate/modelgate/internal/request/userpath"
)

// ChildOf returns the direct child of prefix that path lies in or below
// ("/customers", "/customers/alice/app" → "/customers/alice"); ok is false
// when path is prefix itself or not below it.
func ChildOf(prefix, path string) (child string, ok bool) {
	if path == prefix || !userpath.Covers(prefix, path) {
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
