package admin

import (
	"slices"
	"testing"
)

// TestOpenAPIVirtualModelTimestamps: a virtual model's timestamps are
// documented as date-time strings, never null: a managed row, never
// stored, carries the time its configuration was loaded.
func TestOpenAPIVirtualModelTimestamps(t *testing.T) {
	props := components()["VirtualModel"].(schema)["properties"].(schema)
	for _, name := range []string{"created_at", "updated_at"} {
		p := props[name].(schema)
		types, _ := p["type"].([]string)
		if slices.Contains(types, "null") || p["type"] != "string" || p["format"] != "date-time" {
			t.Errorf("%s documented as %v", name, p)
		}
	}
}

// TestOpenAPINamedShapes: objects whose shape the document names are
// referred to by that name: the inventory's deciding row is a virtual
// model (or null), the caller's budgets are budget entries.
func TestOpenAPINamedShapes(t *testing.T) {
	s := components()
	override := s["ModelAccess"].(schema)["properties"].(schema)["override"].(schema)
	alts, _ := override["anyOf"].([]schema)
	if len(alts) != 2 || alts[0]["$ref"] != "#/components/schemas/VirtualModel" || alts[1]["type"] != "null" {
		t.Errorf("override documented as %v", override)
	}
	budgets := s["SelfUsage"].(schema)["properties"].(schema)["budgets"].(schema)
	if budgets["items"].(schema)["$ref"] != "#/components/schemas/BudgetEntry" {
		t.Errorf("self-usage budgets documented as %v", budgets)
	}
}
