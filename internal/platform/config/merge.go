package config

import (
	"reflect"
	"slices"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// Overlay copies into c every field that is set in o: a non-empty string,
// a non-nil pointer, a non-zero number or bool, a non-nil slice or map
// (an empty but non-nil list therefore clears the lower layer). Slices,
// maps and pointers are shared, not deep-copied.
//
// Providers merge by name: a provider in o whose name is already in c is
// overlaid field by field, except that its type only fills an empty type;
// providers with new names are appended in o's order. Virtual models
// merge by source: a row in o replaces c's row with the same source, new
// sources are appended in o's order. Price overrides merge by provider
// and model the same way.
func (c *Config) Overlay(o Config) {
	overlayValue(reflect.ValueOf(c).Elem(), reflect.ValueOf(o))
}

var (
	providersType     = reflect.TypeFor[Providers]()
	virtualModelsType = reflect.TypeFor[vmodels.List]()
	pricingType       = reflect.TypeFor[[]PricingOverride]()
)

func overlayValue(dst, src reflect.Value) {
	switch dst.Type() {
	case providersType:
		ps := dst.Addr().Interface().(*Providers)
		*ps = ps.overlay(src.Interface().(Providers))
		return
	case virtualModelsType:
		if !src.IsNil() {
			vs := dst.Addr().Interface().(*vmodels.List)
			*vs = overlayVirtualModels(*vs, src.Interface().(vmodels.List))
		}
		return
	case pricingType:
		if !src.IsNil() {
			ps := dst.Addr().Interface().(*[]PricingOverride)
			*ps = overlayPricing(*ps, src.Interface().([]PricingOverride))
		}
		return
	}
	switch src.Kind() {
	case reflect.Struct:
		t := src.Type()
		for i := range src.NumField() {
			if t.Field(i).IsExported() {
				overlayValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		if !src.IsNil() {
			dst.Set(src)
		}
	default:
		if !src.IsZero() {
			dst.Set(src)
		}
	}
}

// overlayVirtualModels returns low with the rows of high merged in by
// source, without modifying low. A non-nil empty high keeps low.
func overlayVirtualModels(low, high vmodels.List) vmodels.List {
	out := slices.Clone(low)
	if out == nil {
		out = vmodels.List{}
	}
	for _, v := range high {
		if i := slices.IndexFunc(out, func(w vmodels.VirtualModel) bool { return w.Source == v.Source }); i >= 0 {
			out[i] = v
			continue
		}
		out = append(out, v)
	}
	return out
}

// overlay returns ps with o merged in by name, without modifying ps.
func (ps Providers) overlay(o Providers) Providers {
	out := slices.Clone(ps)
	for _, p := range o {
		i := slices.IndexFunc(out, func(q Provider) bool { return q.Name == p.Name })
		if i < 0 || p.Name == "" {
			out = append(out, p)
			continue
		}
		typ := out[i].Type
		overlayValue(reflect.ValueOf(&out[i]).Elem(), reflect.ValueOf(p))
		if typ != "" {
			out[i].Type = typ
		}
	}
	return out
}

// overlayPricing returns low with the rows of high merged in by provider
// and model: a row of high replaces low's row of the same key, new keys
// are appended in high's order.
func overlayPricing(low, high []PricingOverride) []PricingOverride {
	out := slices.Clone(low)
	for _, h := range high {
		i := slices.IndexFunc(out, func(l PricingOverride) bool { return l.Provider == h.Provider && l.Model == h.Model })
		if i >= 0 {
			out[i] = h
		} else {
			out = append(out, h)
		}
	}
	return out
}
