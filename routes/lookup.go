package routes

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// group is the routes sharing one path pattern, in table order.
type group struct {
	pattern string
	routes  []*Route
	// segs are the pattern's segments after the leading slash; for
	// patterns only (a static path is compared whole).
	segs []string
	// prefix is the pattern's literal start, a cheap first test.
	prefix string
	// allow lists the methods the path accepts, as an Allow header.
	allow string
	// byMethod is the route answering each method of methods; HEAD falls
	// back to GET, and a route of method Any answers all of them.
	byMethod [len(methods)]*Route
	// any is the route of method Any, if the path has one.
	any *Route
}

// methods are the HTTP methods Lookup tells apart without comparing
// strings.
var methods = [...]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions}

// methodIndex returns method's index in methods, or -1.
func methodIndex(method string) int {
	switch method {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodPatch:
		return 4
	case http.MethodDelete:
		return 5
	case http.MethodOptions:
		return 6
	}
	return -1
}

// index is the table arranged for Lookup.
type index struct {
	// static holds the paths without {name} or /*, by length.
	static [][]*group
	// patterns holds the other paths by their first segment, which is
	// literal: the {name} patterns, then the catch-alls with the longest
	// literal start first.
	patterns []segment
}

// segment is the patterns whose paths start with one literal segment.
type segment struct {
	name   string
	groups []*group
}

var idx = mustIndex(table)

// Lookup finds the route for method and path. One trailing slash is
// ignored; a GET route also answers HEAD. A path named exactly by a route
// wins over a {name} pattern, which wins over a catch-all; among
// catch-alls the longest literal start wins.
//
// ok reports whether a route accepts method on path. When none does, r is
// nil for a path no route names, or else the path's first route, whose
// attributes hold for the whole path (Allow lists the methods it takes).
// Lookup does not allocate.
func Lookup(method, path string) (r *Route, ok bool) {
	if n := len(path); n > 1 && path[n-1] == '/' {
		path = path[:n-1]
	}
	g := idx.find(path)
	if g == nil {
		return nil, false
	}
	if i := methodIndex(method); i >= 0 {
		if r := g.byMethod[i]; r != nil {
			return r, true
		}
	} else if g.any != nil {
		return g.any, true
	}
	return g.routes[0], false
}

// All returns every route, served or not, in table order.
func All() []Route {
	return append([]Route(nil), table...)
}

// Allow lists the methods the route's path accepts, comma-separated as in
// an Allow header ("GET, POST"); "*" for a path that takes any method.
func (r *Route) Allow() string { return r.group.allow }

// PathParams returns the values of the {name} segments of path, matched
// against the route's pattern; nil when it has none or path does not
// match.
func (r *Route) PathParams(path string) map[string]string {
	if n := len(path); n > 1 && path[n-1] == '/' {
		path = path[:n-1]
	}
	var out map[string]string
	ok := walk(r.group.segs, path, func(name, value string) {
		if out == nil {
			out = map[string]string{}
		}
		out[name] = value
	})
	if !ok {
		return nil
	}
	return out
}

// find returns the group whose pattern matches path, or nil.
func (x *index) find(path string) *group {
	if len(path) < len(x.static) {
		for _, g := range x.static[len(path)] {
			if g.pattern == path {
				return g
			}
		}
	}
	if len(path) < 2 {
		return nil
	}
	first := path[1:]
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	for _, seg := range x.patterns {
		if seg.name != first {
			continue
		}
		for _, g := range seg.groups {
			if strings.HasPrefix(path, g.prefix) && walk(g.segs, path, nil) {
				return g
			}
		}
		return nil
	}
	return nil
}

// walk matches path against a pattern's segments, calling param (when not
// nil) with each {name} segment's value. A final "*" matches the rest of
// the path, nothing included.
func walk(segs []string, path string, param func(name, value string)) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	rest, done := path[1:], false
	for _, s := range segs {
		if s == "*" {
			return true
		}
		if done {
			return false
		}
		var seg string
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			seg, rest, done = rest, "", true
		}
		if len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' {
			if seg == "" {
				return false
			}
			if param != nil {
				param(s[1:len(s)-1], seg)
			}
			continue
		}
		if seg != s {
			return false
		}
	}
	return done
}

// mustIndex indexes routes, panicking on a malformed table: the table is
// code, and the tests index it.
func mustIndex(routes []Route) *index {
	x, err := newIndex(routes)
	if err != nil {
		panic("routes: " + err.Error())
	}
	return x
}

// newIndex checks routes and arranges them for Lookup. It sets each
// route's group, so routes must not move afterwards.
func newIndex(routes []Route) (*index, error) {
	x := &index{}
	groups := map[string]*group{}
	ids := map[string]bool{}
	var order []*group
	for i := range routes {
		r := &routes[i]
		if err := check(r); err != nil {
			return nil, err
		}
		if ids[r.ID] {
			return nil, fmt.Errorf("route id %q declared twice", r.ID)
		}
		ids[r.ID] = true
		g := groups[r.Path]
		if g == nil {
			g = &group{pattern: r.Path}
			groups[r.Path] = g
			order = append(order, g)
		}
		for _, o := range g.routes {
			switch {
			case o.Method == r.Method || (o.Method == Any) != (r.Method == Any):
				return nil, fmt.Errorf("%s %s: the path already has %s", r.Method, r.Path, o.Method)
			case o.Credential != r.Credential:
				return nil, fmt.Errorf("%s %s: credential %s differs from %s %s's", r.Method, r.Path, r.Credential, o.Method, o.Path)
			}
		}
		g.routes = append(g.routes, r)
		r.group = g
		if r.Method == Any {
			g.any = r
			for i := range g.byMethod {
				g.byMethod[i] = r
			}
		} else if i := methodIndex(r.Method); i >= 0 {
			g.byMethod[i] = r
		} else {
			return nil, fmt.Errorf("route %s: unknown method %s", r.ID, r.Method)
		}
	}
	for _, g := range order {
		if head := methodIndex(http.MethodHead); g.byMethod[head] == nil {
			g.byMethod[head] = g.byMethod[methodIndex(http.MethodGet)]
		}
		names := make([]string, len(g.routes))
		for i, r := range g.routes {
			names[i] = r.Method
		}
		g.allow = strings.Join(names, ", ")
		cut := strings.IndexAny(g.pattern, "{*")
		if cut < 0 {
			if len(g.pattern) >= len(x.static) {
				x.static = append(x.static, make([][]*group, len(g.pattern)+1-len(x.static))...)
			}
			x.static[len(g.pattern)] = append(x.static[len(g.pattern)], g)
			continue
		}
		g.segs = strings.Split(g.pattern[1:], "/")
		// "/admin/*" also matches "/admin".
		g.prefix = strings.TrimSuffix(g.pattern[:cut], "/")
		var seg *segment
		for i := range x.patterns {
			if x.patterns[i].name == g.segs[0] {
				seg = &x.patterns[i]
			}
		}
		if seg == nil {
			x.patterns = append(x.patterns, segment{name: g.segs[0]})
			seg = &x.patterns[len(x.patterns)-1]
		}
		seg.groups = append(seg.groups, g)
	}
	for _, seg := range x.patterns {
		sort.SliceStable(seg.groups, func(i, j int) bool { return less(seg.groups[i], seg.groups[j]) })
	}
	return x, nil
}

// less orders the patterns of one first segment for matching: {name}
// patterns before catch-alls, and catch-alls by longest literal start.
func less(a, b *group) bool {
	aw, bw := strings.HasSuffix(a.pattern, "/*"), strings.HasSuffix(b.pattern, "/*")
	if aw != bw {
		return bw
	}
	return aw && len(a.prefix) > len(b.prefix)
}

// check validates one route on its own.
func check(r *Route) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("%s %s: no id", r.Method, r.Path)
	case r.Method == "":
		return fmt.Errorf("route %s: no method", r.ID)
	case !strings.HasPrefix(r.Path, "/") || (len(r.Path) > 1 && strings.HasSuffix(r.Path, "/")):
		return fmt.Errorf("route %s: path %q must start and not end with /", r.ID, r.Path)
	case strings.Contains(r.Path, "*") && !strings.HasSuffix(r.Path, "/*"):
		return fmt.Errorf("route %s: * may only end the path", r.ID)
	case r.Shape == ShapeNone || r.Shape >= NumShapes:
		return fmt.Errorf("route %s: no shape", r.ID)
	case r.Doc == nil && (r.Method != Any || !strings.HasSuffix(r.Path, "/*")):
		return fmt.Errorf("route %s: only a catch-all (%s on a path ending in /*) may go undocumented", r.ID, Any)
	}
	segs := strings.Split(r.Path[1:], "/")
	for _, s := range segs {
		if strings.ContainsAny(s, "{}") && (len(s) < 3 || s[0] != '{' || s[len(s)-1] != '}' || strings.Count(s, "{") != 1) {
			return fmt.Errorf("route %s: segment %q: a parameter is a whole {name} segment", r.ID, s)
		}
	}
	if strings.ContainsAny(segs[0], "{*") {
		return fmt.Errorf("route %s: the first segment must be literal", r.ID)
	}
	return nil
}
