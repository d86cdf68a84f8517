package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/pricing"
)

// PricingStorage checks a pricing.Storage: rows round-trip (tiers
// included) with source admin, list by provider then model, a put
// replaces the row of its key, a delete reports whether there was one.
func PricingStorage(t *testing.T, st pricing.Storage) {
	t.Helper()
	if rows, err := st.PricingOverrides(); err != nil || len(rows) != 0 {
		t.Fatalf("%v %v", rows, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	in, out, tok := 1.5, 3.0, int64(200_000)
	row := func(provider, model string, price float64) pricing.Override {
		p := price
		return pricing.Override{Provider: provider, Model: model, Source: pricing.SourceConfig, CreatedAt: at, UpdatedAt: at,
			Pricing: catalog.Pricing{InputPerMTok: &p, OutputPerMTok: &out,
				Tiers: []catalog.Tier{{UpToTokens: &tok, InputPerMTok: &in}, {InputPerMTok: &out}}}}
	}
	for _, o := range []pricing.Override{row("openai", "b", 1), row("openai", "a", 1), row("azure", "z", 1), row("openai", "a", 2)} {
		if err := st.PutPricingOverride(o); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := st.PricingOverrides()
	if err != nil {
		t.Fatal(err)
	}
	want := []pricing.Override{row("azure", "z", 1), row("openai", "a", 2), row("openai", "b", 1)}
	for i := range want {
		want[i].Source = pricing.SourceAdmin
	}
	if len(rows) == len(want) {
		for i := range rows {
			rows[i].CreatedAt, rows[i].UpdatedAt = rows[i].CreatedAt.UTC(), rows[i].UpdatedAt.UTC()
		}
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows\n%+v\nwant\n%+v", rows, want)
	}
	if found, err := st.DeletePricingOverride("openai", "a"); err != nil || !found {
		t.Fatalf("delete: %v %v", found, err)
	}
	if found, err := st.DeletePricingOverride("openai", "a"); err != nil || found {
		t.Fatalf("delete again: %v %v", found, err)
	}
	if rows, err := st.PricingOverrides(); err != nil || len(rows) != 2 {
		t.Fatalf("after delete: %v %v", rows, err)
	}
}
