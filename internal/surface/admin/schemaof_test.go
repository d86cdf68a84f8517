package admin

import (
	"reflect"
	"testing"
)

// TestSchemaOfPointers: a pointer field is nullable, unless it is tagged
// omitempty, which leaves it out instead of writing null.
func TestSchemaOfPointers(t *testing.T) {
	type row struct {
		Null   *int64   `json:"null"`
		Absent *float64 `json:"absent,omitempty"`
		Plain  string   `json:"plain,omitempty"`
	}
	props := schemaOf(reflect.TypeOf(row{}), nil)["properties"].(schema)
	for name, want := range map[string]any{"null": []string{"integer", "null"}, "absent": "number", "plain": "string"} {
		if got := props[name].(schema)["type"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: type %v, want %v", name, got, want)
		}
	}
}
