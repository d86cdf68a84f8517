package pgstore

import (
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// The pricing domain's table: overrides written through the admin API,
// one row per provider and model holding the row as JSON.
var _ = register("pricing_overrides",
	`CREATE TABLE mg_pricing_overrides (
		provider text COLLATE "C" NOT NULL,
		model    text COLLATE "C" NOT NULL,
		row      jsonb NOT NULL,
		PRIMARY KEY (provider, model)
	)`,
)

// PricingOverrides implements pricing.Storage in PostgreSQL. Every write
// is committed when it returns.
type PricingOverrides struct{ db *DB }

var _ pricing.Storage = (*PricingOverrides)(nil)

// NewPricingOverrides returns the override storage over db.
func NewPricingOverrides(db *DB) *PricingOverrides { return &PricingOverrides{db} }

// PricingOverrides implements pricing.Storage, in key order.
func (p *PricingOverrides) PricingOverrides() ([]pricing.Override, error) {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := p.db.Pool.Query(ctx, `SELECT row::text FROM mg_pricing_overrides ORDER BY provider, model`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []pricing.Override
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, classify(err)
		}
		o, err := records.DecodePricingOverride(b)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, classify(rows.Err())
}

// PutPricingOverride implements pricing.Storage.
func (p *PricingOverrides) PutPricingOverride(o pricing.Override) error {
	b, err := records.EncodePricingOverride(o)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = p.db.Pool.Exec(ctx, `INSERT INTO mg_pricing_overrides (provider, model, row) VALUES ($1, $2, $3)
		ON CONFLICT (provider, model) DO UPDATE SET row = EXCLUDED.row`, o.Provider, o.Model, string(b))
	return classify(err)
}

// DeletePricingOverride implements pricing.Storage.
func (p *PricingOverrides) DeletePricingOverride(provider, model string) (bool, error) {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := p.db.Pool.Exec(ctx, `DELETE FROM mg_pricing_overrides WHERE provider = $1 AND model = $2`, provider, model)
	if err != nil {
		return false, classify(err)
	}
	return tag.RowsAffected() > 0, nil
}
