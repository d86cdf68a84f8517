package admin

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// fakeUsage is a pricing.UsageStore over records in memory.
type fakeUsage struct {
	mu   sync.Mutex
	recs []*audit.UsageRecord
}

func (f *fakeUsage) RepriceUsage(_ context.Context, from, to time.Time, reprice func(*audit.UsageRecord) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.recs {
		if t := r.ID.Time(); !t.Before(from) && t.Before(to) {
			reprice(r)
		}
	}
	return nil
}

func newPricingHandler(t *testing.T, usage pricing.UsageStore) (http.Handler, *changeLog, *pricing.Recalculator) {
	t.Helper()
	in := 9.0
	svc, err := pricing.New([]pricing.Override{{Provider: "openai", Model: "gpt-4o", Pricing: catalog.Pricing{InputPerMTok: &in}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "pricing.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := svc.Load(boltstore.NewPricingOverrides(st)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	rc := pricing.NewRecalculator(usage, nil)
	t.Cleanup(rc.Close)
	changes := &changeLog{}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) {
		o.Pricing, o.Recalc, o.Changes = svc, rc, changes
	})
	return h, changes, rc
}

func TestPricingRoutes(t *testing.T) {
	h, changes, _ := newPricingHandler(t, &fakeUsage{})
	res := do(h, "PUT", "/admin/pricing", `{"provider":"openai","model":"gpt-4o-mini","pricing":{"input_per_mtok":1,"output_per_mtok":2}}`)
	if res.status != 200 || res.json(t)["source"] != "admin" {
		t.Fatalf("put: %d %s", res.status, res.body)
	}
	if b, ok := catalog.RequestCost("openai", "gpt-4o-mini", catalog.Consumption{Usage: catalog.Usage{InputTokens: 1_000_000}}, catalog.ReportedCost{}); !ok ||
		b.Source != catalog.CostSourceOverride || b.Total != 1 {
		t.Fatalf("the override is not in force: %+v %v", b, ok)
	}
	res = do(h, "GET", "/admin/pricing", "")
	rows, _ := res.json(t)["overrides"].([]any)
	if res.status != 200 || len(rows) != 2 || rows[0].(map[string]any)["source"] != "config" || rows[1].(map[string]any)["model"] != "gpt-4o-mini" {
		t.Fatalf("list: %d %s", res.status, res.body)
	}
	do(h, "PUT", "/admin/pricing", `{"provider":"openai","model":"gpt-4o","pricing":{}}`).expectErr(t, 409, apierr.TypeInvalidRequest, "pricing_override_managed")
	do(h, "DELETE", "/admin/pricing", `{"provider":"openai","model":"gpt-4o"}`).expectErr(t, 409, apierr.TypeInvalidRequest, "pricing_override_managed")
	e := do(h, "PUT", "/admin/pricing", `{"provider":"openai","model":"x","pricing":{"tiers":[{"up_to_tokens":0}]}}`).
		expectErr(t, 400, apierr.TypeInvalidRequest, apierr.CodeInvalidValue)
	if e.Param == nil || *e.Param != "pricing.tiers[0].up_to_tokens" {
		t.Fatalf("param %v", e.Param)
	}
	do(h, "PUT", "/admin/pricing", `{"provider":"openai","model":"x","pricing":{"per_mtok":1}}`).expectErr(t, 400, apierr.TypeInvalidRequest, "unknown_field")
	do(h, "DELETE", "/admin/pricing", `{"provider":"openai"}`).expectErr(t, 400, apierr.TypeInvalidRequest, apierr.CodeInvalidValue)
	if res := do(h, "DELETE", "/admin/pricing", `{"provider":"openai","model":"gpt-4o-mini"}`); res.status != 204 {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	do(h, "DELETE", "/admin/pricing", `{"provider":"openai","model":"gpt-4o-mini"}`).expectErr(t, 404, apierr.TypeNotFound, "pricing_override_not_found")
	if b, _ := catalog.RequestCost("openai", "gpt-4o-mini", catalog.Consumption{Usage: catalog.Usage{InputTokens: 1}}, catalog.ReportedCost{}); b.Source != catalog.CostSourceCatalog {
		t.Fatalf("the deleted override still prices: %+v", b)
	}
	if got := changes.since(); len(got) != 2 || got[0] != ChangedPricing || got[1] != ChangedPricing {
		t.Fatalf("changes %v, want the put and the delete", got)
	}
}

func TestRecalculateRoute(t *testing.T) {
	day := time.Now().UTC().Truncate(24 * time.Hour)
	ids := audit.NewIDGenerator()
	cost := 0.5
	rec := func(model string, src catalog.CostSource) *audit.UsageRecord {
		c := cost
		return &audit.UsageRecord{ID: ids.New(day.Add(time.Hour)), ProviderName: "main", ProviderType: "openai", Model: model,
			UserPath: "/team/a", Usage: catalog.Usage{InputTokens: 1_000_000}, TotalCost: &c, CostSource: src}
	}
	usage := &fakeUsage{recs: []*audit.UsageRecord{rec("m", catalog.CostSourceCatalog), rec("m", catalog.CostSourceProvider), rec("other", catalog.CostSourceCatalog)}}
	h, _, rc := newPricingHandler(t, usage)
	if res := do(h, "PUT", "/admin/pricing", `{"provider":"main","model":"m","pricing":{"input_per_mtok":2}}`); res.status != 200 {
		t.Fatalf("put: %d %s", res.status, res.body)
	}
	d := day.Format(time.DateOnly)
	res := do(h, "POST", "/admin/usage/recalculate", `{"start_date":"`+d+`","end_date":"`+d+`","model":"m"}`)
	if res.status != 202 {
		t.Fatalf("recalculate: %d %s", res.status, res.body)
	}
	id, _ := res.json(t)["id"].(string)
	if !rc.Wait(id) {
		t.Fatalf("no job %q", id)
	}
	res = do(h, "GET", "/admin/usage/recalculate/"+id, "")
	j := res.json(t)
	// Only the catalog-priced record of m changes, from 0.5 to 2 USD.
	if res.status != 200 || j["status"] != "done" || j["records_scanned"] != 3.0 || j["records_changed"] != 1.0 ||
		j["cost_before"] != 0.5 || j["cost_after"] != 2.0 || j["delta"] != 1.5 {
		t.Fatalf("status: %d %s", res.status, res.body)
	}
	if *usage.recs[0].TotalCost != 2 || usage.recs[0].CostSource != catalog.CostSourceOverride || *usage.recs[1].TotalCost != 0.5 || *usage.recs[2].TotalCost != 0.5 {
		t.Fatalf("records %v %v %v", *usage.recs[0].TotalCost, *usage.recs[1].TotalCost, *usage.recs[2].TotalCost)
	}
	do(h, "GET", "/admin/usage/recalculate/recalc_nope", "").expectErr(t, 404, apierr.TypeNotFound, "recalculation_not_found")
	e := do(h, "POST", "/admin/usage/recalculate", `{"start_date":"2026-01-01","end_date":"2028-01-01"}`).expectErr(t, 400, apierr.TypeInvalidRequest, apierr.CodeInvalidValue)
	if e.Param == nil || *e.Param != "end_date" {
		t.Fatalf("param %v", e.Param)
	}
	do(h, "POST", "/admin/usage/recalculate", `{"end_date":"2026-01-01"}`).expectErr(t, 400, apierr.TypeInvalidRequest, apierr.CodeInvalidValue)
}

func TestPricingUnavailable(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	do(h, "GET", "/admin/pricing", "").expectErr(t, 503, apierr.TypeProvider, "pricing_unavailable")
	do(h, "POST", "/admin/usage/recalculate", `{}`).expectErr(t, 503, apierr.TypeProvider, "usage_unavailable")
}
