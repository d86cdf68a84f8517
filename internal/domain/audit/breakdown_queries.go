package audit

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Breakdown page sizes.
const (
	// DefaultBreakdownLimit is the page size of a breakdown that names
	// none.
	DefaultBreakdownLimit = 100
	// MaxBreakdownLimit is the largest page size; larger limits are
	// clamped.
	MaxBreakdownLimit = 1000
)

// BreakdownBy names what a breakdown groups by.
type BreakdownBy string

// Breakdown groupings.
const (
	// ByUserPath groups by user path (or its first Depth segments).
	ByUserPath BreakdownBy = "user_path"
	// ByKey groups by managed key id ("" for the master key or none).
	ByKey BreakdownBy = "key"
	// ByModel groups by the model that executed the request.
	ByModel BreakdownBy = "model"
	// ByProvider groups by provider instance.
	ByProvider BreakdownBy = "provider"
	// ByEndpoint groups by API path called.
	ByEndpoint BreakdownBy = "endpoint"
)

// UsageFilter narrows usage reads. Empty fields do not filter.
type UsageFilter struct {
	// UserPath keeps that path and the paths below it.
	UserPath string
	// KeyID keeps the records of that managed key.
	KeyID string
	// Model keeps the records of that model (exact).
	Model string
	// Provider keeps the records of that provider instance (exact).
	Provider string
}

// IsZero reports whether f filters nothing.
func (f UsageFilter) IsZero() bool { return f == UsageFilter{} }

// ParseUsageFilter reads user_path (normalized; a bad path is a 400
// error), key_id, model and provider.
func ParseUsageFilter(v url.Values) (UsageFilter, error) {
	f := UsageFilter{KeyID: v.Get("key_id"), Model: v.Get("model"), Provider: v.Get("provider")}
	if p := v.Get("user_path"); p != "" {
		var err error
		if f.UserPath, err = userpath.Normalize(p); err != nil {
			return f, badParam("user_path", err.Error())
		}
	}
	return f, nil
}

// Keeps reports whether a row of these dimensions passes f.
func (f UsageFilter) Keeps(path, keyID, provider, model string) bool {
	return (f.UserPath == "" || userpath.Covers(f.UserPath, path)) &&
		(f.KeyID == "" || keyID == f.KeyID) &&
		(f.Provider == "" || provider == f.Provider) &&
		(f.Model == "" || model == f.Model)
}

// BreakdownQuery selects a usage breakdown.
type BreakdownQuery struct {
	// By is the grouping.
	By BreakdownBy
	// Depth, with ByUserPath and when above 0, groups by the first Depth
	// segments of the path.
	Depth int
	// Window is the days summed.
	Window Window
	// Filter narrows the records summed.
	Filter UsageFilter
	// Limit is the page size.
	Limit int
	// After continues after a previous page (BreakdownPage.Next).
	After string
}

// ParseBreakdownQuery reads by (required), depth, the window (see
// ParseWindow), the filters (see ParseUsageFilter), limit and after. Bad
// values are 400 errors.
func ParseBreakdownQuery(v url.Values, now time.Time) (BreakdownQuery, error) {
	q := BreakdownQuery{By: BreakdownBy(v.Get("by")), After: v.Get("after")}
	switch q.By {
	case ByUserPath, ByKey, ByModel, ByProvider, ByEndpoint:
	case "":
		return q, badParam("by", "by is required: user_path, key, model, provider or endpoint")
	default:
		return q, badParam("by", "by must be user_path, key, model, provider or endpoint")
	}
	var err error
	if q.Depth, err = intParam(v, "depth", 0, 1); err != nil {
		return q, err
	}
	if q.Depth > 0 && q.By != ByUserPath {
		return q, badParam("depth", "depth applies only to by=user_path")
	}
	if q.Limit, err = intParam(v, "limit", DefaultBreakdownLimit, 1); err != nil {
		return q, err
	}
	q.Limit = min(q.Limit, MaxBreakdownLimit)
	if q.Window, err = ParseWindow(v, now); err != nil {
		return q, err
	}
	if q.Filter, err = ParseUsageFilter(v); err != nil {
		return q, err
	}
	if q.After != "" {
		if _, ok := decodeBreakdownCursor(q.After); !ok {
			return q, badParam("after", "after is not a cursor this endpoint returned")
		}
	}
	return q, nil
}

// BreakdownGroup is one row of a breakdown: the sums of one group.
type BreakdownGroup struct {
	// Group is the group's user path, key id, model, provider or endpoint.
	Group string `json:"group"`
	// Name is the managed key's name, in key groups whose key is known.
	Name *string `json:"name,omitempty"`
	// Requests counts requests, response-cache hits included.
	Requests int64 `json:"requests"`
	// InputTokens sums input tokens.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens sums output tokens.
	OutputTokens int64 `json:"output_tokens"`
	// CachedInputTokens sums input tokens read from a provider cache.
	CachedInputTokens int64 `json:"cached_input_tokens"`
	// CacheWriteInputTokens sums input tokens written to a provider cache.
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	// ReasoningTokens sums reasoning tokens.
	ReasoningTokens int64 `json:"reasoning_tokens"`
	// TotalCost sums the spend; null when no request of the group was
	// priced.
	TotalCost *catalog.Nanos `json:"total_cost"`
	// CacheHits counts requests the response cache answered.
	CacheHits int64 `json:"cache_hits"`
	// CostAvoided sums what the response-cache hits would have cost.
	CostAvoided catalog.Nanos `json:"cost_avoided"`
	// Errors4xx counts requests that ended with a 4xx status.
	Errors4xx int64 `json:"errors_4xx"`
	// Errors5xx counts requests that ended with a 5xx status.
	Errors5xx int64 `json:"errors_5xx"`
	// P50Ms is the median duration, to the histogram's bucket
	// (DurationBucketsMs); null without requests.
	P50Ms *int64 `json:"p50_ms"`
	// P95Ms is the 95th percentile duration, likewise.
	P95Ms *int64 `json:"p95_ms"`
}

// BreakdownPage is one page of a breakdown.
type BreakdownPage struct {
	// By is the grouping.
	By BreakdownBy `json:"by"`
	// StartDate and EndDate are the window's first and last days.
	StartDate string `json:"start_date"`
	// EndDate is the window's last day.
	EndDate string `json:"end_date"`
	// Rows are ordered by cost, then requests, largest first, then by
	// group.
	Rows []BreakdownGroup `json:"rows"`
	// Next fetches the next page (as after); null on the last one.
	Next *string `json:"next"`
	// ServerTime is when the answer was computed.
	ServerTime time.Time `json:"server_time"`
}

// breakdownCursor is the position of a page's last row.
type breakdownCursor struct {
	Cost     int64  `json:"c"`
	Requests int64  `json:"r"`
	Group    string `json:"g"`
}

func decodeBreakdownCursor(s string) (breakdownCursor, bool) {
	var c breakdownCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil {
		return c, false
	}
	return c, true
}

func (c breakdownCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// groupOf returns the group of row r under q.
func (q *BreakdownQuery) groupOf(r *BreakdownRow) string {
	switch q.By {
	case ByKey:
		return r.KeyID
	case ByModel:
		return r.Model
	case ByProvider:
		return r.Provider
	case ByEndpoint:
		return r.Endpoint
	}
	return PathPrefix(r.UserPath, q.Depth)
}

// PathPrefix returns the first depth segments of user path p ("/a/b/c",
// 2 → "/a/b"); p itself when it has no more or depth is 0.
func PathPrefix(p string, depth int) string {
	if depth <= 0 {
		return p
	}
	n := 0
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			if n++; n == depth {
				return p[:i]
			}
		}
	}
	return p
}

// Breakdown returns one page of the usage of q.Window grouped by q.By,
// from the monthly breakdown rows of the whole months inside the window
// and the daily rows of the days around them. With nil storage the page
// is empty.
func (uq *UsageQueries) Breakdown(q BreakdownQuery) (BreakdownPage, error) {
	page := BreakdownPage{By: q.By, StartDate: q.Window.StartDate(), EndDate: q.Window.EndDate(),
		Rows: []BreakdownGroup{}, ServerTime: uq.now().UTC()}
	if uq.st == nil {
		return page, nil
	}
	uq.settle.settle(uq.st)
	var rows []BreakdownRow
	for _, part := range windowParts(q.Window) {
		rs, err := uq.st.Breakdown(BreakdownSelect{Granularity: part.g, From: part.from, To: part.to,
			Filter: q.Filter, By: q.By})
		if err != nil {
			return page, err
		}
		rows = append(rows, rs...)
	}
	sums := map[string]*BreakdownRow{}
	for i := range rows {
		r := &rows[i]
		g := q.groupOf(r)
		if s, ok := sums[g]; ok {
			s.Add(r)
		} else {
			c := *r
			sums[g] = &c
		}
	}
	type ranked struct {
		group string
		row   *BreakdownRow
	}
	all := make([]ranked, 0, len(sums))
	for g, r := range sums {
		all = append(all, ranked{g, r})
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmpBreakdown(breakdownCursor{int64(a.row.Cost), a.row.Requests, a.group},
			breakdownCursor{int64(b.row.Cost), b.row.Requests, b.group})
	})
	if q.After != "" {
		c, ok := decodeBreakdownCursor(q.After)
		if !ok {
			return page, badParam("after", "after is not a cursor this endpoint returned")
		}
		i, _ := slices.BinarySearchFunc(all, c, func(a ranked, c breakdownCursor) int {
			return cmpBreakdown(breakdownCursor{int64(a.row.Cost), a.row.Requests, a.group}, c)
		})
		for i < len(all) && cmpBreakdown(breakdownCursor{int64(all[i].row.Cost), all[i].row.Requests, all[i].group}, c) <= 0 {
			i++
		}
		all = all[i:]
	}
	limit := max(1, min(q.Limit, MaxBreakdownLimit))
	if len(all) > limit {
		all = all[:limit]
		last := all[limit-1]
		next := breakdownCursor{int64(last.row.Cost), last.row.Requests, last.group}.encode()
		page.Next = &next
	}
	for _, a := range all {
		page.Rows = append(page.Rows, groupOfRow(a.group, a.row))
	}
	return page, nil
}

// cmpBreakdown orders rows by cost, then requests, largest first, then by
// group.
func cmpBreakdown(a, b breakdownCursor) int {
	if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
		return c
	}
	return strings.Compare(a.Group, b.Group)
}

// groupOfRow is the answer row of a group's sums.
func groupOfRow(group string, r *BreakdownRow) BreakdownGroup {
	g := BreakdownGroup{Group: group, Requests: r.Requests,
		InputTokens: r.Tokens.InputTokens, OutputTokens: r.Tokens.OutputTokens,
		CachedInputTokens: r.Tokens.CachedInputTokens, CacheWriteInputTokens: r.Tokens.CacheWriteInputTokens,
		ReasoningTokens: r.Tokens.ReasoningTokens, CacheHits: r.CacheHits, CostAvoided: r.CostAvoided,
		Errors4xx: r.Errors4xx, Errors5xx: r.Errors5xx,
		P50Ms: percentileMs(&r.Durations, 0.5), P95Ms: percentileMs(&r.Durations, 0.95)}
	if r.Priced > 0 {
		c := r.Cost
		g.TotalCost = &c
	}
	return g
}

// ceilRank is the rank of the p-th percentile among n values (1-based).
func ceilRank(n int64, p float64) int64 {
	return max(1, min(n, int64(math.Ceil(float64(n)*p))))
}

// windowPart is a piece of a window read at one granularity.
type windowPart struct {
	g        Granularity
	from, to time.Time
}

// windowParts splits w into the whole months inside it, read from monthly
// rows, and the days before and after them, read from daily rows.
func windowParts(w Window) []windowPart {
	first := Monthly.Truncate(w.Start)
	if first.Before(w.Start) {
		first = first.AddDate(0, 1, 0)
	}
	last := Monthly.Truncate(w.End)
	if !first.Before(last) {
		return []windowPart{{Daily, w.Start, w.End}}
	}
	var parts []windowPart
	if w.Start.Before(first) {
		parts = append(parts, windowPart{Daily, w.Start, first})
	}
	parts = append(parts, windowPart{Monthly, first, last})
	if last.Before(w.End) {
		parts = append(parts, windowPart{Daily, last, w.End})
	}
	return parts
}
