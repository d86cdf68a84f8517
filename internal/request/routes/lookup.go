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
	// prefix is a pattern's literal start, up to the segment before its
	// first {name} or *; segs are the segments after it. Both are empty
	// for a static path, which is compared whole.
	prefix string
	segs   []string
	// allow lists the methods the path accepts, as an Allow header.
	allow string
	// byMethod is the route answering each method, by methodIndex; HEAD
	// falls back to GET, and a route of method Any answers all of them.
	byMethod [numMethods]*Route
	// any is the route of method Any, if the path has one.
	any *Route
}

// numMethods is the number of HTTP methods methodIndex tells apart.
const numMethods = 7

// methodIndex numbers the methods a route may declare, or returns -1.
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
	// static holds the paths without {name} or /* in open addressing: a
	// path is at hashPath(path)&mask or in the slots after it, before
	// the next empty one. It is at most a quarter full.
	static []*group
	mask   uint32
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
// nil for a path no route names, or else the path's first route: its
// Credential holds for every method of the path, and Allow lists the
// methods the path takes. Lookup does not allocate.
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

// unrouted stands in for a path under /v1/ that no route names.
var unrouted = Route{Path: "/v1/*", Shape: ShapeNone, Audited: true}

// AuditedUnmatched returns the route under which a request that no route
// accepts (Lookup's r and ok false, for path) is audited, or nil when it
// is not. Every request to the model API is audited, whatever its
// outcome: one with a method its path does not take under that path's
// route when that route is audited, one to a path under /v1/ that no
// route names under a stand-in route of no shape.
func AuditedUnmatched(r *Route, path string) *Route {
	switch {
	case r != nil && r.Audited:
		return r
	case r == nil && strings.HasPrefix(path, "/v1/"):
		return &unrouted
	}
	return nil
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
	g := r.group
	if g.segs == nil || !strings.HasPrefix(path, g.prefix) {
		return nil
	}
	ok := walk(g.segs, path[len(g.prefix):], func(name, value string) {
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

// hashPath mixes a path's length and three of its bytes; it is the start
// slot of the path in index.static.
func hashPath(p string) uint32 {
	n := len(p)
	k := uint32(n) | uint32(p[n-1])<<8 | uint32(p[n/2])<<16 | uint32(p[n/3])<<24
	return (k * 0x9E3779B1) >> 12
}

// find returns the group whose pattern matches path, or nil.
func (x *index) find(path string) *group {
	if len(path) < 2 {
		return nil
	}
	for i := hashPath(path) & x.mask; ; i = (i + 1) & x.mask {
		g := x.static[i]
		if g == nil {
			break
		}
		if g.pattern == path {
			return g
		}
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
			if strings.HasPrefix(path, g.prefix) && walk(g.segs, path[len(g.prefix):], nil) {
				return g
			}
		}
		return nil
	}
	return nil
}

// walk matches rest, the part of a path after a pattern's literal
// prefix ("" or "/seg/..."), against the pattern's remaining segments,
// calling param (when not nil) with each {name} segment's value. A final
// "*" matches whatever is left, nothing included.
func walk(segs []string, rest string, param func(name, value string)) bool {
	for _, s := range segs {
		if s == "*" {
			return rest == "" || rest[0] == '/'
		}
		if rest == "" || rest[0] != '/' {
			return false
		}
		rest = rest[1:]
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		if s[0] == '{' {
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
	return rest == ""
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
	var order, static []*group
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
		// HEAD is taken wherever GET is, so Allow names it after GET.
		names := make([]string, 0, len(g.routes)+1)
		for _, r := range g.routes {
			names = append(names, r.Method)
			if r.Method == http.MethodGet && g.byMethod[methodIndex(http.MethodHead)] == r {
				names = append(names, http.MethodHead)
			}
		}
		g.allow = strings.Join(names, ", ")
		cut := strings.IndexAny(g.pattern, "{*")
		if cut < 0 {
			static = append(static, g)
			continue
		}
		// The prefix stops before the slash of the first {name} or *, so
		// that "/admin/*" also matches "/admin".
		g.prefix = strings.TrimSuffix(g.pattern[:cut], "/")
		g.segs = strings.Split(g.pattern[len(g.prefix)+1:], "/")
		first, _, _ := strings.Cut(g.pattern[1:], "/")
		var seg *segment
		for i := range x.patterns {
			if x.patterns[i].name == first {
				seg = &x.patterns[i]
			}
		}
		if seg == nil {
			x.patterns = append(x.patterns, segment{name: first})
			seg = &x.patterns[len(x.patterns)-1]
		}
		seg.groups = append(seg.groups, g)
	}
	for _, seg := range x.patterns {
		sort.SliceStable(seg.groups, func(i, j int) bool { return less(seg.groups[i], seg.groups[j]) })
	}
	size := 16
	for size < 4*len(static) {
		size *= 2
	}
	x.static, x.mask = make([]*group, size), uint32(size-1)
	for _, g := range static {
		i := hashPath(g.pattern) & x.mask
		for x.static[i] != nil {
			i = (i + 1) & x.mask
		}
		x.static[i] = g
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

// Path is the path a request's route is matched on: the escaped form when
// the client escaped a character that needed none (a URL-encoded user
// path in /admin/budgets/{user_path}/{period} keeps its "%2F" as one
// segment), else the path. Path parameters are therefore URL-encoded.
// Every stage that looks a request's route up matches this path, so that
// the stages that count, limit and record a request agree with the one
// that serves it.
func Path(r *http.Request) string {
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	return r.URL.Path
}

// LookupRequest is Lookup of r's method and Path.
func LookupRequest(r *http.Request) (*Route, bool) {
	return Lookup(r.Method, Path(r))
}
