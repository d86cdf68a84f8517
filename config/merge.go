package config

import (
	"reflect"
	"slices"
)

// Overlay copies into c every field that is set in o: a non-empty string,
// a non-nil pointer, a non-zero number or bool, a non-nil slice or map
// (an empty but non-nil list therefore clears the lower layer). Slices,
// maps and pointers are shared, not deep-copied.
//
// Providers merge by name: a provider in o whose name is already in c is
// overlaid field by field, except that its type only fills an empty type;
// providers with new names are appended in o's order.
func (c *Config) Overlay(o Config) {
	overlayValue(reflect.ValueOf(c).Elem(), reflect.ValueOf(o))
}

var providersType = reflect.TypeFor[Providers]()

func overlayValue(dst, src reflect.Value) {
	if dst.Type() == providersType {
		ps := dst.Addr().Interface().(*Providers)
		*ps = ps.overlay(src.Interface().(Providers))
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
