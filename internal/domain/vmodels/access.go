package vmodels

import (
	"strings"

	"github.com/modelgate/modelgate/internal/request/userpath"
)

// policies indexes the rows without targets by the selector they match.
type policies struct {
	exact    map[string]map[string]*Row // provider → model → row ("provider/model")
	provider map[string]*Row            // "provider/*"
	model    map[string]*Row            // "model"
	star     *Row                       // "*"
	any      bool
}

// add indexes a policy row by its selector.
func (p *policies) add(r *Row) {
	p.any = true
	src := r.Source
	switch {
	case src == "*":
		p.star = r
	case strings.HasSuffix(src, "/*"):
		if p.provider == nil {
			p.provider = map[string]*Row{}
		}
		p.provider[strings.TrimSuffix(src, "/*")] = r
	case strings.Contains(src, "/"):
		prov, model, _ := strings.Cut(src, "/")
		if p.exact == nil {
			p.exact = map[string]map[string]*Row{}
		}
		if p.exact[prov] == nil {
			p.exact[prov] = map[string]*Row{}
		}
		p.exact[prov][model] = r
	default:
		if p.model == nil {
			p.model = map[string]*Row{}
		}
		p.model[src] = r
	}
}

// lookup returns the most specific policy for model on provider:
// "provider/model", then "provider/*", then "model", then "*"; nil when
// none applies.
func (p *policies) lookup(provider, model string) *Row {
	if !p.any {
		return nil
	}
	if r := p.exact[provider][model]; r != nil {
		return r
	}
	if r := p.provider[provider]; r != nil {
		return r
	}
	if r := p.model[model]; r != nil {
		return r
	}
	return p.star
}

// allows reports whether the row lets a caller at userPath use what it
// selects: it is enabled and, when it names user paths, the caller is at
// or under one of them. A nil row allows everyone.
func allows(r *Row, userPath string) bool {
	if r == nil {
		return true
	}
	if r.Enabled != nil && !*r.Enabled {
		return false
	}
	return pathAllowed(r.UserPaths, userPath)
}

// pathAllowed reports whether userPath is at or under one of paths; an
// empty list allows every path.
func pathAllowed(paths []string, userPath string) bool {
	if len(paths) == 0 {
		return true
	}
	if userPath == "" {
		userPath = "/"
	}
	for _, p := range paths {
		if userpath.Covers(p, userPath) {
			return true
		}
	}
	return false
}
