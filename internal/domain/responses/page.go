package responses

import (
	"encoding/json"
	"slices"

	"github.com/tidwall/gjson"
)

// Page is one page of a list of items in OpenAI's list shape.
type Page struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

// Paging limits of the input_items list.
const (
	// DefaultLimit is the page size when the client names none.
	DefaultLimit = 20
	// MaxLimit is the largest page size.
	MaxLimit = 100
)

// PageItems returns the page of items (in their stored order) that
// starts after the item with id after ("" from the start) in order asc or
// desc (the default, newest first), at most limit long. An after that
// names no item gives an empty page.
func PageItems(items []json.RawMessage, after string, limit int, desc bool) Page {
	if desc {
		items = slices.Clone(items)
		slices.Reverse(items)
	}
	start := 0
	if after != "" {
		start = len(items)
		for i, it := range items {
			if gjson.GetBytes(it, "id").Str == after {
				start = i + 1
				break
			}
		}
	}
	end := min(start+limit, len(items))
	p := Page{Object: "list", Data: items[start:end], HasMore: end < len(items)}
	if p.Data == nil {
		p.Data = []json.RawMessage{}
	}
	if n := len(p.Data); n > 0 {
		first, last := gjson.GetBytes(p.Data[0], "id").Str, gjson.GetBytes(p.Data[n-1], "id").Str
		p.FirstID, p.LastID = &first, &last
	}
	return p
}
