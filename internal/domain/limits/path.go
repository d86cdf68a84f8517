package limits

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelgate/modelgate/internal/request/userpath"
)

// matchPath returns userPath in the form rules are matched on, or the
// reason userpath.Normalize refuses it: normalized and lower-cased, since
// rule subjects match without regard to case (foldPath). Paths reaching
// admission were normalized by authentication already; a cheap structural
// check (leading slash, no trailing slash, no empty segment, no segment
// starting with a dot) confirms that without rescanning every byte, and
// every other path goes through userpath.Normalize. Only the structure
// decides which rules and which template child a path matches.
func matchPath(userPath string) (string, error) {
	if n := len(userPath); n >= 2 && userPath[0] == '/' && userPath[n-1] != '/' &&
		!strings.Contains(userPath, "//") &&
		(strings.IndexByte(userPath, '.') < 0 || !strings.Contains(userPath, "/.")) {
		return foldPath(userPath), nil
	}
	p, err := userpath.Normalize(userPath)
	return foldPath(p), err
}

// foldPath returns a normalized path lower-cased like lowerString: user
// paths match rule subjects without regard to case, so "/Team/App" counts
// against a rule on "/team" (and in the same template child as
// "/team/app"). A path with no upper-case letter and no multi-byte
// character, the common case, is returned as it is, without allocating.
func foldPath(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return lowerString(p)
		}
	}
	return p
}

// childOf returns the direct child segment of path under parent (a proper
// ancestor of path at a segment boundary): for parent "/customers" and path
// "/customers/alice/app" it is "alice". ok is false when path is parent
// itself or not below it.
func childOf(parent, path string) (child string, ok bool) {
	var rest string
	if parent == "/" {
		rest = path[1:]
	} else {
		if len(path) <= len(parent)+1 || path[:len(parent)] != parent || path[len(parent)] != '/' {
			return "", false
		}
		rest = path[len(parent)+1:]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, rest != ""
}

// childPath joins a template subject and a child segment.
func childPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// appendLower appends s lower-cased (per rune, invalid UTF-8 becoming
// U+FFFD) to b without allocating when b has room.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += n
	}
	return b
}

// lowerString lower-cases s exactly like appendLower, so rule subjects and
// hot-path lookup keys agree.
func lowerString(s string) string {
	return string(appendLower(make([]byte, 0, len(s)), s))
}
