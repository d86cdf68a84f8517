package admin

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// schemaOf returns the JSON schema of the JSON form of Go type t: the
// properties of a struct by their json names (embedded structs flattened),
// pointers nullable (a pointer field tagged omitempty is absent instead,
// never null), raw JSON any value, times as date-time strings, sums of
// money kept in catalog.Nanos as the numbers of currency units they are
// written as, and cost sources as strings, null where there is no cost.
// Answers whose Go type is the API's type describe themselves with it, so
// the document cannot lose a field the server sends. describe adds the
// description of a property by its JSON name, where there is one.
func schemaOf(t reflect.Type, describe map[string]string) schema {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	var s schema
	switch {
	case t != reflect.TypeOf(time.Time{}) && t.Implements(reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()):
		s = schema{"type": "string"} // an id
	case t == reflect.TypeOf(time.Time{}):
		s = schema{"type": "string", "format": "date-time"}
	case t == reflect.TypeOf(json.RawMessage(nil)):
		s = schema{"description": "Any JSON value."}
		return s
	case t == reflect.TypeOf(catalog.Nanos(0)):
		s = schema{"type": "number"}
	case t == reflect.TypeOf(catalog.CostSource("")):
		return schema{"type": []string{"string", "null"},
			"description": "Where the cost comes from: provider (the price the provider reported), catalog (the catalog's list price) or override (the operator's price); null without a cost."}
	default:
		switch t.Kind() {
		case reflect.String:
			s = schema{"type": "string"}
		case reflect.Bool:
			s = schema{"type": "boolean"}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s = schema{"type": "integer"}
		case reflect.Float32, reflect.Float64:
			s = schema{"type": "number"}
		case reflect.Slice, reflect.Array:
			s = schema{"type": "array", "items": schemaOf(t.Elem(), describe)}
		case reflect.Map:
			s = schema{"type": "object", "additionalProperties": schemaOf(t.Elem(), describe)}
		case reflect.Struct:
			props := schema{}
			for _, f := range reflect.VisibleFields(t) {
				if f.Anonymous || !f.IsExported() {
					continue
				}
				name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				ft := f.Type
				for ft.Kind() == reflect.Pointer && strings.Contains(","+opts+",", ",omitempty,") {
					ft = ft.Elem()
				}
				p := schemaOf(ft, describe)
				if d := describe[name]; d != "" {
					p["description"] = d
				}
				props[name] = p
			}
			s = schema{"type": "object", "properties": props}
		default:
			s = schema{}
		}
	}
	if nullable {
		if typ, ok := s["type"].(string); ok {
			s["type"] = []string{typ, "null"}
		}
	}
	return s
}
