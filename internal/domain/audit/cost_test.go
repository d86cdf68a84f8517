package audit_test

import (
	"encoding/json"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestCostOfAndSetCost: the entry's cost object and the usage record
// carry the same figure and source; a provider's total without a split
// leaves input and output null in both.
func TestCostOfAndSetCost(t *testing.T) {
	for _, c := range []struct {
		b          catalog.Breakdown
		entry, rec string
	}{
		{catalog.Breakdown{Input: 0.25, Output: 0.5, Total: 0.75, Currency: "USD", Source: catalog.CostSourceCatalog},
			`{"input":0.25,"output":0.5,"total":0.75,"currency":"USD","source":"catalog"}`,
			`"input_cost":0.25,"output_cost":0.5,"total_cost":0.75,"cost_source":"catalog"}`},
		{catalog.Breakdown{Total: 0.95, Currency: "USD", Source: catalog.CostSourceProvider, Unsplit: true},
			`{"input":null,"output":null,"total":0.95,"currency":"USD","source":"provider"}`,
			`"input_cost":null,"output_cost":null,"total_cost":0.95,"cost_source":"provider"}`},
	} {
		e, err := json.Marshal(audit.CostOf(c.b))
		if err != nil || string(e) != c.entry {
			t.Errorf("entry cost %s (%v), want %s", e, err, c.entry)
		}
		var r audit.UsageRecord
		in := 9.0
		r.InputCost = &in // replaced
		r.SetCost(c.b)
		raw, _ := json.Marshal(&r)
		if got := string(raw); len(got) < len(c.rec) || got[len(got)-len(c.rec):] != c.rec {
			t.Errorf("usage record %s, want it to end %s", got, c.rec)
		}
		if r.Spend() != c.b.Total {
			t.Errorf("spend %v, want %v", r.Spend(), c.b.Total)
		}
	}
	// An unpriced record has no source.
	raw, _ := json.Marshal(&audit.UsageRecord{})
	if got := string(raw); got[len(got)-len(`"total_cost":null,"cost_source":null}`):] != `"total_cost":null,"cost_source":null}` {
		t.Errorf("unpriced record %s", got)
	}
}
