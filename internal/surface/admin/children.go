package admin

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Paging of the children lists.
const (
	// DefaultChildrenLimit is the page size of the children lists.
	DefaultChildrenLimit = 50
	// MaxChildrenLimit is the largest page size they accept.
	MaxChildrenLimit = 1000
)

// BudgetChildren is the answer of GET
// /admin/budgets/{user_path}/{period}/children: one page of a per_child
// template's children, most spent first.
type BudgetChildren struct {
	// Children are the page's children.
	Children []budgets.Child `json:"children"`
	// Next fetches the next page (as after); null on the last one.
	Next *string `json:"next"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
}

// RateLimitChild is one child of a per_child rate-limit template.
type RateLimitChild struct {
	// UserPath is the child's path ("/customers/alice").
	UserPath string `json:"user_path"`
	// RequestsUsed is the child's sliding-window request estimate.
	RequestsUsed int64 `json:"requests_used"`
	// TokensUsed is its sliding-window token estimate.
	TokensUsed int64 `json:"tokens_used"`
	// InFlight is the number of its admitted requests still running.
	InFlight int64 `json:"in_flight"`
	// MaxRequests is the template's request cap (in-flight cap of a
	// concurrent template), which each child has on its own; 0: none.
	MaxRequests int64 `json:"max_requests"`
	// MaxTokens is the template's token cap; 0: none.
	MaxTokens int64 `json:"max_tokens"`
	// Exhausted reports that the child's next request would be refused by
	// the template.
	Exhausted bool `json:"exhausted"`
}

// RateLimitChildren is the answer of GET /admin/rate-limits/children: one
// page of a per_child template's children, most used first.
type RateLimitChildren struct {
	// Children are the page's children.
	Children []RateLimitChild `json:"children"`
	// Next fetches the next page (as after); null on the last one.
	Next *string `json:"next"`
	// ServerTime is the gateway's clock, UTC.
	ServerTime time.Time `json:"server_time"`
}

// childCursor is the position of a page's last child: its ranking
// values (largest first) and its path.
type childCursor struct {
	Rank []int64 `json:"k"`
	Path string  `json:"p"`
}

// encode writes c as an opaque cursor.
func (c childCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeChildCursor reads a cursor of n ranking values.
func decodeChildCursor(s string, n int) (childCursor, bool) {
	var c childCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || len(c.Rank) != n {
		return c, false
	}
	return c, true
}

// compare orders cursors as the lists are: ranking values largest first,
// then path.
func (c childCursor) compare(o childCursor) int {
	for i := range c.Rank {
		if r := cmp.Compare(o.Rank[i], c.Rank[i]); r != 0 {
			return r
		}
	}
	return cmp.Compare(c.Path, o.Path)
}

// childPage reads limit and after from q and returns the page of items
// (sorted as cursorOf orders them) after the cursor, and the next cursor
// when more follow.
func childPage[T any](q url.Values, items []T, rank int, cursorOf func(T) childCursor) ([]T, *string, *apierr.Error) {
	limit := DefaultChildrenLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, nil, apierr.InvalidRequest("limit: must be a whole number of at least 1").WithCode(apierr.CodeInvalidValue).WithParam("limit")
		}
		limit = min(n, MaxChildrenLimit)
	}
	if after := q.Get("after"); after != "" {
		c, ok := decodeChildCursor(after, rank)
		if !ok {
			return nil, nil, apierr.InvalidRequest("after: not a cursor this endpoint returned").WithCode(apierr.CodeInvalidValue).WithParam("after")
		}
		i, _ := slices.BinarySearchFunc(items, c, func(it T, c childCursor) int { return cursorOf(it).compare(c) })
		for i < len(items) && cursorOf(items[i]).compare(c) <= 0 {
			i++
		}
		items = items[i:]
	}
	if len(items) <= limit {
		return items, nil, nil
	}
	items = items[:limit]
	next := cursorOf(items[limit-1]).encode()
	return items, &next, nil
}

// budgetChildren answers GET /admin/budgets/{user_path}/{period}/children.
func (h *Handler) budgetChildren(w http.ResponseWriter, r *http.Request, p params) {
	s := h.budgetService(w)
	if s == nil {
		return
	}
	k, ae := pathKey(p)
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	kids, err := s.ChildList(k)
	if err != nil {
		h.budgetError(w, err, "user_path")
		return
	}
	page, next, ae := childPage(r.URL.Query(), kids, 1, func(c budgets.Child) childCursor {
		return childCursor{Rank: []int64{int64(c.SpentNanos())}, Path: c.UserPath}
	})
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	if page == nil {
		page = []budgets.Child{}
	}
	writeJSON(w, http.StatusOK, BudgetChildren{Children: page, Next: next, ServerTime: h.opts.Now().UTC()})
}

// rateLimitChildren answers GET /admin/rate-limits/children?scope=&subject=&period=.
func (h *Handler) rateLimitChildren(w http.ResponseWriter, r *http.Request, _ params) {
	e := h.rateLimiter(w)
	if e == nil {
		return
	}
	q := r.URL.Query()
	kb := rateLimitKey{Scope: q.Get("scope"), Subject: q.Get("subject"), UserPath: q.Get("user_path")}
	if q.Has("period") {
		p := q.Get("period")
		kb.Period = &p
	}
	if v := q.Get("period_seconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			apierr.Write(w, apierr.InvalidRequest("period_seconds: not a whole number").WithCode(apierr.CodeInvalidValue).WithParam("period_seconds"))
			return
		}
		kb.PeriodSeconds = n
	}
	k, ae := kb.key("")
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	kids, err := e.Children(k)
	if err != nil {
		h.rateLimitError(w, err)
		return
	}
	rule, _ := e.Rule(k)
	rows := make([]RateLimitChild, len(kids))
	for i, c := range kids {
		rows[i] = RateLimitChild{UserPath: c.UserPath, RequestsUsed: c.Usage.RequestsUsed, TokensUsed: c.Usage.TokensUsed,
			InFlight: c.Usage.InFlight, MaxRequests: rule.MaxRequests, MaxTokens: rule.MaxTokens, Exhausted: c.Exhausted}
	}
	page, next, ae := childPage(q, rows, 3, func(c RateLimitChild) childCursor {
		return childCursor{Rank: []int64{c.RequestsUsed, c.TokensUsed, c.InFlight}, Path: c.UserPath}
	})
	if ae != nil {
		apierr.Write(w, ae)
		return
	}
	if page == nil {
		page = []RateLimitChild{}
	}
	writeJSON(w, http.StatusOK, RateLimitChildren{Children: page, Next: next, ServerTime: h.opts.Now().UTC()})
}

// parentPath is the parent of a normalized user path ("/" for a path of
// one segment).
func parentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
