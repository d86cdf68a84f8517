package catalog

import (
	"strings"
	"sync/atomic"
)

// selfHosted lists provider types that run models on the operator's own
// hardware: vendor list prices do not apply to them.
func selfHosted(providerType string) bool {
	return providerType == "ollama" || providerType == "vllm"
}

// Lookup returns the metadata of modelID as served by a provider of type
// providerType, and false when the model is not catalogued (its metadata is
// then absent).
//
// Resolution, first hit wins:
//  1. the exact id in the type's own catalog (azure uses openai's);
//  2. the normalized id in that catalog: a "models/" prefix and a Vertex
//     "@version" suffix are dropped, then trailing version markers are peeled
//     one at a time (-YYYY-MM-DD, -YYYYMMDD, 4- and 3-digit snapshots such as
//     -0613 or -001, -latest, -beta, -preview and -preview-<date>), each step
//     tried in turn, so gpt-4o-mini-2024-07-18 finds gpt-4o-mini while
//     gemini-2.5-flash-preview-tts does not become gemini-2.5-flash; the same
//     again lower-cased and with dots as dashes (claude-3.7-sonnet);
//  3. a vendor prefix ("anthropic/claude-sonnet-4", "x-ai/grok-4",
//     "google/gemini-2.5-pro") looked up, normalized, in that vendor's catalog;
//  4. for types without a catalog of their own (openrouter, ollama, vllm,
//     unknown), and for mock, whose own catalog has only its built-in
//     models, every catalog in a fixed order, first-party vendors first,
//     so openrouter's "openai/gpt-oss-120b" finds Groq's entry.
//
// Ids reached through another vendor carry that vendor's list prices; for the
// self-hosted types ollama and vllm Pricing is nil. The result shares maps,
// slices and Pricing with the catalog: treat it as read-only. An exact hit
// does not allocate.
func Lookup(providerType, modelID string) (Metadata, bool) {
	e, typ := catalogIndex().lookup(providerType, modelID)
	if e == nil {
		return Metadata{}, false
	}
	m := e.meta
	if selfHosted(typ) {
		m.Pricing = nil
	}
	return m, true
}

// lookup finds the entry of Lookup and returns it with the provider type as
// used (lower-cased when the given one was not known as is).
func (idx *index) lookup(providerType, modelID string) (*entry, string) {
	if modelID == "" {
		return nil, providerType
	}
	own, ok := idx.byType[providerType]
	if !ok {
		providerType = strings.ToLower(strings.TrimSpace(providerType))
		own = idx.byType[providerType]
	}
	if own != nil {
		if e := own.models[modelID]; e != nil {
			return e, providerType
		}
	}
	return idx.resolve(own, modelID), providerType
}

// resolve applies steps 2 to 4 of Lookup.
func (idx *index) resolve(own *providerCatalog, id string) *entry {
	id = strings.TrimPrefix(strings.TrimSpace(id), "models/")
	if own != nil {
		if e := own.find(id); e != nil {
			return e
		}
	}
	if vendor, rest, ok := strings.Cut(id, "/"); ok {
		if c := idx.byVendor[strings.ToLower(vendor)]; c != nil {
			if e := c.find(rest); e != nil {
				return e
			}
		}
	}
	if own == nil || own.servesOthers {
		for _, c := range idx.ordered {
			if e := c.find(id); e != nil {
				return e
			}
		}
	}
	return nil
}

// find looks id up in c with the normalizations of Lookup's step 2.
func (c *providerCatalog) find(id string) *entry {
	if id == "" {
		return nil
	}
	if at := strings.IndexByte(id, '@'); at > 0 {
		id = id[:at]
	}
	if e := c.peel(id); e != nil {
		return e
	}
	lower := strings.ToLower(id)
	if lower != id {
		if e := c.peel(lower); e != nil {
			return e
		}
	}
	if strings.Contains(lower, ".") {
		return c.peel(strings.ReplaceAll(lower, ".", "-"))
	}
	return nil
}

// peel tries s, then s with its trailing version markers removed one by one.
func (c *providerCatalog) peel(s string) *entry {
	for {
		if e := c.models[s]; e != nil {
			return e
		}
		t, ok := stripVersion(s)
		if !ok {
			return nil
		}
		s = t
	}
}

// stripVersion removes one trailing version marker from s.
func stripVersion(s string) (string, bool) {
	if i := strings.LastIndex(s, "-preview-"); i > 0 && onlyDigitsAndDashes(s[i+len("-preview-"):]) {
		return s[:i], true
	}
	if n := len(s); n > 11 && s[n-11] == '-' && s[n-6] == '-' && s[n-3] == '-' &&
		allDigits(s[n-10:n-6]) && allDigits(s[n-5:n-3]) && allDigits(s[n-2:]) {
		return s[:n-11], true // -YYYY-MM-DD
	}
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return s, false
	}
	switch last := s[i+1:]; {
	case last == "latest", last == "beta", last == "preview":
		return s[:i], true
	case (len(last) == 8 || len(last) == 4 || len(last) == 3) && allDigits(last):
		return s[:i], true // -YYYYMMDD, -MMDD or -YYMM, -001
	}
	return s, false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func onlyDigitsAndDashes(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '-' {
			return false
		}
	}
	return true
}

// OverrideKey names the model an operator prices: Provider is a provider
// instance's name or a provider type, Model the model id as the provider
// serves it (exact, case-sensitive).
type OverrideKey struct {
	// Provider is the provider name or type the price applies to.
	Provider string
	// Model is the model id the price applies to.
	Model string
}

// Overrides is an immutable set of operator prices that replace the
// catalog's (CostSourceOverride). Build it with NewOverrides and put it in
// force with SetOverrides.
type Overrides struct {
	m map[OverrideKey]*Pricing
}

// NewOverrides returns the set of the prices in m; it copies m, not the
// prices' pointers, so callers must not change them afterwards.
func NewOverrides(m map[OverrideKey]Pricing) *Overrides {
	o := &Overrides{m: make(map[OverrideKey]*Pricing, len(m))}
	for k, p := range m {
		o.m[k] = &p
	}
	return o
}

// Len returns the number of prices in o (0 for nil).
func (o *Overrides) Len() int {
	if o == nil {
		return 0
	}
	return len(o.m)
}

// find returns the price for modelID on the provider named providerName
// of type providerType: the provider name's price first, then the type's.
func (o *Overrides) find(providerName, providerType, modelID string) *Pricing {
	if o == nil || len(o.m) == 0 {
		return nil
	}
	if providerName != "" {
		if p := o.m[OverrideKey{providerName, modelID}]; p != nil {
			return p
		}
	}
	if providerType != "" && providerType != providerName {
		return o.m[OverrideKey{providerType, modelID}]
	}
	return nil
}

// current holds the overrides in force; nil is none.
var current atomic.Pointer[Overrides]

// SetOverrides puts o in force for every later cost (nil clears them) and
// returns the set it replaced.
func SetOverrides(o *Overrides) (prev *Overrides) { return current.Swap(o) }

// ClearOverrides removes o from force if it still is, so that a gateway
// that stops does not clear the prices a newer one put in force.
func ClearOverrides(o *Overrides) { current.CompareAndSwap(o, nil) }

// OverridePrice returns the operator's price for modelID on the provider
// named providerName of type providerType, if one is in force: a price
// set for the provider name wins over one set for its type. It does not
// allocate.
func OverridePrice(providerName, providerType, modelID string) (*Pricing, bool) {
	p := current.Load().find(providerName, providerType, modelID)
	return p, p != nil
}
