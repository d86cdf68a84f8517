package budgets

import "strings"

// ChildOf returns the direct child of prefix that path belongs to, as a
// full path: for "/customers" and "/customers/alice/app" it is
// "/customers/alice". ok is false when path is prefix itself or not below
// it. A per_child template on prefix charges that child.
func ChildOf(prefix, path string) (child string, ok bool) {
	seg, ok := childSegment(prefix, path)
	if !ok {
		return "", false
	}
	return childPath(prefix, seg), true
}

// childSegment is ChildOf's last segment ("alice"), a substring of path.
func childSegment(prefix, path string) (string, bool) {
	var rest string
	if prefix == "/" {
		if len(path) < 2 || path[0] != '/' {
			return "", false
		}
		rest = path[1:]
	} else {
		if len(path) <= len(prefix)+1 || path[:len(prefix)] != prefix || path[len(prefix)] != '/' {
			return "", false
		}
		rest = path[len(prefix)+1:]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, rest != ""
}

// childPath joins a template path and a child segment.
func childPath(prefix, seg string) string {
	if prefix == "/" {
		return "/" + seg
	}
	return prefix + "/" + seg
}
