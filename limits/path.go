package limits

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormalizeUserPath cleans a user path the way rule subjects are stored:
// surrounding space trimmed, a leading "/" added, repeated slashes collapsed
// and trailing slashes removed; the empty path is "/". Case is kept: user
// paths are case-sensitive (environment seeding lower-cases its suffix).
// Callers of AdmitUserPath and StatusFor should pass normalized paths.
func NormalizeUserPath(p string) string {
	p = strings.TrimSpace(p)
	if isCleanPath(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 1)
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// isCleanPath reports whether p is already normalized.
func isCleanPath(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	return !strings.Contains(p, "//")
}

// trimUserPath is the allocation-free part of NormalizeUserPath used on the
// hot path: "" becomes "/" and trailing slashes are dropped.
func trimUserPath(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	if p == "" {
		return "/"
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

// pathCovers reports whether a rule on subject applies to path: the same
// path or a descendant at a segment boundary ("/team" covers "/team/app"
// but not "/team-alpha"); "/" covers everything.
func pathCovers(subject, path string) bool {
	if subject == "/" || subject == path {
		return true
	}
	return len(path) > len(subject) && path[:len(subject)] == subject && path[len(subject)] == '/'
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
