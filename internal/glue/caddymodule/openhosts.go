package caddymodule

import (
	"maps"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// openHosts is the set of Host names an open gateway (no master key, no
// managed key) serves besides the loopback ones: the names the http app's
// routes match on. A browser page can point a name it owns at 127.0.0.1
// (DNS rebinding) and reach a gateway on this machine, but it cannot make
// the request carry a name it does not own, so refusing every other Host
// keeps such pages away from an open gateway.
type openHosts struct {
	exact     map[string]bool // lower case
	wildcards [][]string      // lower-case labels, "*" for any one label
}

// newOpenHosts returns the set of names, each a host matcher value:
// exact, or with "*" labels standing for any one label (as Caddy's host
// matcher reads them). A name that still holds a placeholder once the
// global ones (env, system) are replaced depends on the request and is
// left out.
func newOpenHosts(names []string) *openHosts {
	s := &openHosts{exact: make(map[string]bool, len(names))}
	repl := caddy.NewReplacer()
	for _, n := range names {
		n = strings.ToLower(strings.TrimSuffix(repl.ReplaceKnown(n, ""), "."))
		switch {
		case n == "" || strings.ContainsAny(n, "{}"):
		case strings.Contains(n, "*"):
			s.wildcards = append(s.wildcards, strings.Split(n, "."))
		default:
			s.exact[n] = true
		}
	}
	return s
}

// allowed reports whether a request whose Host header is host (with or
// without a port) may be served by an open gateway: host is localhost, a
// name under .localhost, a loopback address (127.0.0.0/8, ::1, written
// bare or in brackets) or a name of s. An empty Host is not allowed.
func (s *openHosts) allowed(host string) bool {
	name := hostName(host)
	if name == "" {
		return false
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		return ip.Unmap().IsLoopback()
	}
	if s == nil {
		return false
	}
	if s.exact[name] {
		return true
	}
	if len(s.wildcards) == 0 {
		return false
	}
	labels := strings.Split(name, ".")
	for _, w := range s.wildcards {
		if wildcardMatch(w, labels) {
			return true
		}
	}
	return false
}

// names returns, sorted, the exact names and wildcard patterns of s.
func (s *openHosts) names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.exact)+len(s.wildcards))
	for n := range s.exact {
		out = append(out, n)
	}
	for _, w := range s.wildcards {
		out = append(out, strings.Join(w, "."))
	}
	sort.Strings(out)
	return out
}

// hostName is the name in a Host header: without the port and the
// brackets of an IPv6 address, lower case, without a final dot.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// wildcardMatch reports whether labels match pattern label by label, "*"
// matching any one label.
func wildcardMatch(pattern, labels []string) bool {
	if len(pattern) != len(labels) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != labels[i] {
			return false
		}
	}
	return true
}

// siteHosts returns, sorted and without repeats, the values of every host
// matcher in the servers' routes: their routes, named routes and error
// routes, and the routes (and error routes) of subroutes at any depth. These are the names
// the Caddy sites are addressed by (a Caddyfile site address with a host
// becomes a host matcher).
func siteHosts(servers map[string]*caddyhttp.Server) []string {
	seen := map[string]bool{}
	var walk func(caddyhttp.RouteList)
	walk = func(routes caddyhttp.RouteList) {
		for _, rt := range routes {
			for _, set := range rt.MatcherSets {
				for _, m := range set {
					var hosts caddyhttp.MatchHost
					switch m := m.(type) {
					case caddyhttp.MatchHost:
						hosts = m
					case *caddyhttp.MatchHost:
						hosts = *m
					}
					for _, h := range hosts {
						seen[h] = true
					}
				}
			}
			for _, h := range rt.Handlers {
				if sub, ok := h.(*caddyhttp.Subroute); ok {
					walk(sub.Routes)
					if sub.Errors != nil {
						walk(sub.Errors.Routes)
					}
				}
			}
		}
	}
	for _, srv := range servers {
		if srv == nil {
			continue
		}
		walk(srv.Routes)
		for _, rt := range srv.NamedRoutes {
			if rt != nil {
				walk(caddyhttp.RouteList{*rt})
			}
		}
		if srv.Errors != nil {
			walk(srv.Errors.Routes)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
