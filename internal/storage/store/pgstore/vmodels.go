package pgstore

import (
	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// The vmodels domain's tables: virtual models written through the admin
// API, one row per source holding the row as JSON, and failover routes,
// one row per primary model holding its targets as a JSON array.
var _ = register("virtual_models",
	`CREATE TABLE mg_virtual_models (
		source text COLLATE "C" PRIMARY KEY,
		row    jsonb NOT NULL
	)`,
	`CREATE TABLE mg_failover_routes (
		primary_model text COLLATE "C" PRIMARY KEY,
		targets       jsonb NOT NULL
	)`,
)

// VirtualModels implements vmodels.Storage in PostgreSQL. Every write is
// committed when it returns.
type VirtualModels struct{ db *DB }

var _ vmodels.Storage = (*VirtualModels)(nil)

// NewVirtualModels returns the virtual-model storage over db.
func NewVirtualModels(db *DB) *VirtualModels { return &VirtualModels{db} }

// VirtualModels implements vmodels.Storage, in source order.
func (v *VirtualModels) VirtualModels() ([]vmodels.Row, error) {
	var out []vmodels.Row
	err := v.forEach(`SELECT source, row::text FROM mg_virtual_models ORDER BY source`, func(source string, b []byte) error {
		r, err := records.DecodeVirtualModel(source, b)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// PutVirtualModel implements vmodels.Storage: the rename's delete and the
// upsert share one transaction.
func (v *VirtualModels) PutVirtualModel(r vmodels.Row, oldSource string) error {
	b, err := records.EncodeVirtualModel(r)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, v.db.Pool, func(tx pgx.Tx) error {
		if oldSource != "" && oldSource != r.Source {
			if _, err := tx.Exec(ctx, `DELETE FROM mg_virtual_models WHERE source = $1`, oldSource); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO mg_virtual_models (source, row) VALUES ($1, $2)
			ON CONFLICT (source) DO UPDATE SET row = EXCLUDED.row`, r.Source, string(b))
		return err
	}))
}

// DeleteVirtualModel implements vmodels.Storage.
func (v *VirtualModels) DeleteVirtualModel(source string) error {
	return v.exec(`DELETE FROM mg_virtual_models WHERE source = $1`, source)
}

// FailoverRoutes implements vmodels.Storage.
func (v *VirtualModels) FailoverRoutes() (vmodels.Failover, error) {
	out := vmodels.Failover{}
	err := v.forEach(`SELECT primary_model, targets::text FROM mg_failover_routes ORDER BY primary_model`, func(primary string, b []byte) error {
		ts, err := records.DecodeFailoverTargets(primary, b)
		if err != nil {
			return err
		}
		out[primary] = ts
		return nil
	})
	return out, err
}

// PutFailoverRoute implements vmodels.Storage.
func (v *VirtualModels) PutFailoverRoute(primary string, targets []string) error {
	b, err := records.EncodeFailoverTargets(targets)
	if err != nil {
		return err
	}
	return v.exec(`INSERT INTO mg_failover_routes (primary_model, targets) VALUES ($1, $2)
		ON CONFLICT (primary_model) DO UPDATE SET targets = EXCLUDED.targets`, primary, string(b))
}

// DeleteFailoverRoute implements vmodels.Storage.
func (v *VirtualModels) DeleteFailoverRoute(primary string) error {
	return v.exec(`DELETE FROM mg_failover_routes WHERE primary_model = $1`, primary)
}

// exec runs one statement.
func (v *VirtualModels) exec(sql string, args ...any) error {
	ctx, cancel := opContext()
	defer cancel()
	_, err := v.db.Pool.Exec(ctx, sql, args...)
	return classify(err)
}

// forEach runs query, which selects a name and a JSON text, and calls fn
// for every row; it stops at fn's first error.
func (v *VirtualModels) forEach(query string, fn func(name string, b []byte) error) error {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := v.db.Pool.Query(ctx, query)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, body string
		if err := rows.Scan(&name, &body); err != nil {
			return classify(err)
		}
		if err := fn(name, []byte(body)); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}
