package catalog

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

//go:embed data/*.json
var dataFS embed.FS

// dataFile is the shape of one data/<provider>.json file.
type dataFile struct {
	Provider       string            `json:"provider"`
	VendorPrefixes []string          `json:"vendor_prefixes"`
	PricingSources map[string]string `json:"pricing_sources"`
	// ServesOtherVendors marks a type that also serves models of the
	// other families (the built-in mock provider, configured with any
	// model list): a model not in its own file is looked up as for a type
	// without a catalog.
	ServesOtherVendors bool        `json:"serves_other_vendors"`
	Models             []dataModel `json:"models"`
}

// dataModel is one model of a data file: its id, extra ids that resolve to
// it, and its metadata inline.
type dataModel struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases"`
	Metadata
}

// entry is one catalogued model.
type entry struct {
	id   string
	meta Metadata
}

// providerCatalog holds the models of one provider family.
type providerCatalog struct {
	name   string
	models map[string]*entry // canonical ids and aliases
	ids    []string          // canonical ids, sorted
	// servesOthers: a model not found here is looked up in the other
	// families too (dataFile.ServesOtherVendors).
	servesOthers bool
}

// index is the whole parsed catalog.
type index struct {
	byType   map[string]*providerCatalog // provider type → its own catalog
	byVendor map[string]*providerCatalog // vendor prefix ("x-ai") → catalog
	ordered  []*providerCatalog          // search order for other types
}

// typeAliases maps provider types that serve another family's models.
var typeAliases = map[string]string{"azure": "openai"}

// searchOrder ranks families for types without a catalog of their own:
// first-party vendors before hosts of open-weight models.
var searchOrder = []string{"openai", "anthropic", "gemini", "xai", "deepseek", "mistral", "groq", "elevenlabs"}

var catalogIndex = sync.OnceValue(func() *index {
	idx, err := parse(dataFS)
	if err != nil {
		panic("catalog: embedded data: " + err.Error())
	}
	return idx
})

// parse reads every data/*.json file of fsys into an index.
func parse(fsys fs.FS) (*index, error) {
	names, err := fs.Glob(fsys, "data/*.json")
	if err != nil {
		return nil, err
	}
	idx := &index{byType: map[string]*providerCatalog{}, byVendor: map[string]*providerCatalog{}}
	for _, name := range names {
		c, prefixes, err := parseFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if idx.byType[c.name] != nil {
			return nil, fmt.Errorf("%s: provider %q defined twice", name, c.name)
		}
		idx.byType[c.name] = c
		for _, p := range prefixes {
			if idx.byVendor[p] != nil {
				return nil, fmt.Errorf("%s: vendor prefix %q defined twice", name, p)
			}
			idx.byVendor[p] = c
		}
	}
	for alias, target := range typeAliases {
		if c := idx.byType[target]; c != nil {
			idx.byType[alias] = c
		}
	}
	for _, name := range searchOrder {
		if c := idx.byType[name]; c != nil {
			idx.ordered = append(idx.ordered, c)
		}
	}
	return idx, nil
}

// parseFile decodes and checks one data file.
func parseFile(fsys fs.FS, name string) (*providerCatalog, []string, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f dataFile
	if err := dec.Decode(&f); err != nil {
		return nil, nil, err
	}
	if want := strings.TrimSuffix(path.Base(name), ".json"); f.Provider != want {
		return nil, nil, fmt.Errorf("provider %q does not match the file name", f.Provider)
	}
	c := &providerCatalog{name: f.Provider, models: make(map[string]*entry, 2*len(f.Models)), servesOthers: f.ServesOtherVendors}
	for _, m := range f.Models {
		if m.ID == "" {
			return nil, nil, fmt.Errorf("model without id")
		}
		e := &entry{id: m.ID, meta: m.Metadata}
		if e.meta.PricingSources == nil {
			e.meta.PricingSources = f.PricingSources
		}
		for _, id := range append([]string{m.ID}, m.Aliases...) {
			if c.models[id] != nil {
				return nil, nil, fmt.Errorf("model id or alias %q defined twice", id)
			}
			c.models[id] = e
		}
		c.ids = append(c.ids, m.ID)
	}
	slices.Sort(c.ids)
	return c, f.VendorPrefixes, nil
}

// Providers returns the provider families with catalogued models, sorted.
func Providers() []string {
	var out []string
	for _, c := range catalogIndex().ordered {
		out = append(out, c.name)
	}
	slices.Sort(out)
	return out
}

// IDs returns the canonical model ids catalogued for a provider type (azure
// shares openai's), sorted; nil for types without a catalog of their own.
func IDs(providerType string) []string {
	c := catalogIndex().byType[strings.ToLower(providerType)]
	if c == nil {
		return nil
	}
	return slices.Clone(c.ids)
}
