package pricing

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// memStorage is a Storage in memory, shared like a database.
type memStorage struct {
	mu   sync.Mutex
	rows map[catalog.OverrideKey]Override
}

func (m *memStorage) PricingOverrides() ([]Override, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Override
	for _, o := range m.rows {
		out = append(out, o)
	}
	return out, nil
}

func (m *memStorage) PutPricingOverride(o Override) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[o.Key()] = o
	return nil
}

func (m *memStorage) DeletePricingOverride(p, mo string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := catalog.OverrideKey{Provider: p, Model: mo}
	_, ok := m.rows[k]
	delete(m.rows, k)
	return ok, nil
}

func price(v float64) *float64 { return &v }

func cost(provider, model string) (catalog.Breakdown, bool) {
	return catalog.RequestCostOn(provider, "openai", model, catalog.Consumption{Usage: catalog.Usage{InputTokens: 1_000_000}}, catalog.ReportedCost{})
}

func TestServiceConfigStoredAndReload(t *testing.T) {
	if _, err := New([]Override{{Provider: "a", Model: "m"}, {Provider: "a", Model: "m"}}, time.Now()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate config rows: %v", err)
	}
	cfg := []Override{{Provider: "openai", Model: "gpt-4o", Pricing: catalog.Pricing{InputPerMTok: price(7)}}}
	st := &memStorage{rows: map[catalog.OverrideKey]Override{}}
	s1, err := New(cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := cost("x", "gpt-4o"); b.Source == catalog.CostSourceOverride {
		t.Fatal("New put the config rows in force before Load")
	}
	if err := s1.Load(st); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s1.Close)
	if b, _ := cost("x", "gpt-4o"); b.Source != catalog.CostSourceOverride || b.Total != 7 {
		t.Fatalf("config row: %+v", b)
	}
	// A second process shares the storage (only one set is in force per
	// process; here the last Load's).
	s2, _ := New(cfg, time.Now())
	if err := s2.Load(st); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Put("main", "gpt-4o-mini", catalog.Pricing{InputPerMTok: price(3)}); err != nil {
		t.Fatal(err)
	}
	if err := s1.Reload(); err != nil {
		t.Fatal(err)
	}
	// A stored row that no longer validates is left out, with a warning.
	var warned []string
	s1.Warn = func(m string) { warned = append(warned, m) }
	st.rows[catalog.OverrideKey{Provider: "bad", Model: "m"}] = Override{Provider: "bad", Model: "m", Pricing: catalog.Pricing{Currency: "EUR"}}
	if err := s1.Reload(); err != nil || len(warned) != 1 || len(s1.List()) != 2 {
		t.Fatalf("bad stored row: %v %v %+v", err, warned, s1.List())
	}
	kept := s1.inForce
	if err := s1.Reload(); err != nil || s1.inForce != kept {
		t.Fatalf("a reload that found nothing new rebuilt the prices in force (%v)", err)
	}
	if got := s1.List(); len(got) != 2 || got[1].Provider != "openai" || got[0].Source != SourceAdmin {
		t.Fatalf("after reload: %+v", got)
	}
	if b, _ := cost("main", "gpt-4o-mini"); b.Source != catalog.CostSourceOverride || b.Total != 3 {
		t.Fatalf("stored row: %+v", b)
	}
	if _, err := s1.Put("openai", "gpt-4o", catalog.Pricing{}); !errors.Is(err, ErrManaged) {
		t.Fatalf("put over config: %v", err)
	}
	if err := s1.Delete("nope", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete missing: %v", err)
	}
	if err := s1.Delete("main", "gpt-4o-mini"); err != nil {
		t.Fatal(err)
	}
	if b, _ := cost("main", "gpt-4o-mini"); b.Source != catalog.CostSourceCatalog {
		t.Fatalf("deleted row still prices: %+v", b)
	}
	s2.Close() // no longer in force: changes nothing
	if b, _ := cost("x", "gpt-4o"); b.Source != catalog.CostSourceOverride {
		t.Fatal("closing a replaced service cleared the prices in force")
	}
}

func TestValidate(t *testing.T) {
	n0, n5 := int64(0), int64(5)
	for _, tc := range []struct {
		o     Override
		param string
	}{
		{Override{Model: "m"}, "provider"},
		{Override{Provider: "p"}, "model"},
		{Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{Currency: "EUR"}}, "pricing.currency"},
		{Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{PerImage: price(-1)}}, "pricing.per_image"},
		{Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{Tiers: []catalog.Tier{{UpToTokens: &n0}}}}, "pricing.tiers[0].up_to_tokens"},
		{Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{Tiers: []catalog.Tier{{UpToTokens: &n5, OutputPerMTok: price(2e6)}}}}, "pricing.tiers[0].output_per_mtok"},
		{Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{Tiers: []catalog.Tier{{}, {}}}}, "pricing.tiers"},
	} {
		err := tc.o.Validate()
		if !errors.Is(err, ErrInvalid) || apierr.ParamOf(err) != tc.param {
			t.Errorf("%+v: %v (param %q), want one on %s", tc.o, err, apierr.ParamOf(err), tc.param)
		}
	}
	ok := Override{Provider: "p", Model: "m", Pricing: catalog.Pricing{InputPerMTok: price(0), Tiers: []catalog.Tier{{UpToTokens: &n5}, {}}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestReprice(t *testing.T) {
	prev := catalog.SetOverrides(catalog.NewOverrides(map[catalog.OverrideKey]catalog.Pricing{{Provider: "main", Model: "m"}: {InputPerMTok: price(2)}}))
	t.Cleanup(func() { catalog.SetOverrides(prev) })
	one := 1.0
	rec := func(src catalog.CostSource, cache string) *audit.UsageRecord {
		c := one
		return &audit.UsageRecord{ProviderName: "main", ProviderType: "openai", Model: "m", CacheType: cache,
			Usage: catalog.Usage{InputTokens: 1_000_000}, TotalCost: &c, CostSource: src}
	}
	r := rec(catalog.CostSourceCatalog, "")
	if !Reprice(r) || *r.TotalCost != 2 || r.CostSource != catalog.CostSourceOverride || *r.InputCost != 2 {
		t.Fatalf("catalog record: %+v", r)
	}
	if Reprice(r) {
		t.Fatal("repricing again changed the record")
	}
	unpriced := rec("", "")
	unpriced.TotalCost = nil
	if !Reprice(unpriced) || *unpriced.TotalCost != 2 {
		t.Fatal("an unpriced record with a price today was not priced")
	}
	for _, r := range []*audit.UsageRecord{rec(catalog.CostSourceProvider, ""), rec(catalog.CostSourceCatalog, "exact")} {
		if Reprice(r) || *r.TotalCost != 1 {
			t.Fatalf("kept record changed: %+v", r)
		}
	}
	noPrice := rec(catalog.CostSourceCatalog, "")
	noPrice.Model = "unknown-model-xyz"
	if Reprice(noPrice) {
		t.Fatal("a record without a price today changed")
	}
}
