package admin

import (
	"slices"
	"testing"
)

// TestOpenAPIVirtualModelTimestamps: a virtual model's timestamps are
// documented as nullable date-times, as a managed row, never stored,
// has none.
func TestOpenAPIVirtualModelTimestamps(t *testing.T) {
	props := components()["VirtualModel"].(schema)["properties"].(schema)
	for _, name := range []string{"created_at", "updated_at"} {
		p := props[name].(schema)
		types, _ := p["type"].([]string)
		if !slices.Contains(types, "null") || !slices.Contains(types, "string") || p["format"] != "date-time" {
			t.Errorf("%s documented as %v", name, p)
		}
	}
}
