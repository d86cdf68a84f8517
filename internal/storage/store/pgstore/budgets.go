package pgstore

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// The budgets domain's tables: manual budgets and reset marks, one row per
// budget key (the period as admin routes write it, "daily" or "600", and
// the user path) holding the record as JSON (times keep their
// nanoseconds), and the settings in a single row.
var _ = register("budgets",
	`CREATE TABLE mg_budgets (
		period    text COLLATE "C" NOT NULL,
		user_path text COLLATE "C" NOT NULL,
		record    jsonb NOT NULL,
		PRIMARY KEY (period, user_path)
	)`,
	`CREATE TABLE mg_budget_resets (
		period    text COLLATE "C" NOT NULL,
		user_path text COLLATE "C" NOT NULL,
		record    jsonb NOT NULL,
		PRIMARY KEY (period, user_path)
	)`,
	`CREATE TABLE mg_budget_settings (
		id       boolean PRIMARY KEY DEFAULT true CHECK (id),
		settings jsonb NOT NULL
	)`,
)

// Budgets implements budgets.Storage in PostgreSQL. Every write is
// committed when it returns.
type Budgets struct{ db *DB }

var _ budgets.Storage = (*Budgets)(nil)

// NewBudgets returns the budgets storage over db.
func NewBudgets(db *DB) *Budgets { return &Budgets{db} }

// Budgets implements budgets.Storage.
func (b *Budgets) Budgets() ([]budgets.Budget, error) {
	var out []budgets.Budget
	err := b.forEach("mg_budgets", func(name string, v []byte) error {
		bg, err := records.DecodeBudget(name, v)
		if err != nil {
			return err
		}
		out = append(out, bg)
		return nil
	})
	return out, err
}

// PutBudget implements budgets.Storage.
func (b *Budgets) PutBudget(bg budgets.Budget) error {
	v, err := records.EncodeBudget(bg)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = b.db.Pool.Exec(ctx, `INSERT INTO mg_budgets (period, user_path, record) VALUES ($1, $2, $3)
		ON CONFLICT (period, user_path) DO UPDATE SET record = EXCLUDED.record`,
		bg.Period.PathValue(), bg.UserPath, string(v))
	return classify(err)
}

// DeleteBudget implements budgets.Storage: the budget and its reset mark
// go in one transaction.
func (b *Budgets) DeleteBudget(k budgets.Key) error {
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, b.db.Pool, func(tx pgx.Tx) error {
		for _, table := range [...]string{"mg_budgets", "mg_budget_resets"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE period = $1 AND user_path = $2`,
				k.Period.PathValue(), k.UserPath); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Settings implements budgets.Storage.
func (b *Budgets) Settings() (s budgets.Settings, ok bool, err error) {
	ctx, cancel := opContext()
	defer cancel()
	var v string
	err = b.db.Pool.QueryRow(ctx, `SELECT settings::text FROM mg_budget_settings`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, classify(err)
	}
	s, err = records.DecodeSettings([]byte(v))
	return s, true, err
}

// PutSettings implements budgets.Storage.
func (b *Budgets) PutSettings(s budgets.Settings) error {
	v, err := records.EncodeSettings(s)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = b.db.Pool.Exec(ctx, `INSERT INTO mg_budget_settings (id, settings) VALUES (true, $1)
		ON CONFLICT (id) DO UPDATE SET settings = EXCLUDED.settings`, string(v))
	return classify(err)
}

// Resets implements budgets.Storage.
func (b *Budgets) Resets() (map[budgets.Key]time.Time, error) {
	out := map[budgets.Key]time.Time{}
	err := b.forEach("mg_budget_resets", func(name string, v []byte) error {
		k, at, err := records.DecodeReset(name, v)
		if err != nil {
			return err
		}
		out[k] = at
		return nil
	})
	return out, err
}

// PutResets implements budgets.Storage in one transaction.
func (b *Budgets) PutResets(resets map[budgets.Key]time.Time) error {
	batch := &pgx.Batch{}
	for k, at := range resets {
		v, err := records.EncodeReset(k, at)
		if err != nil {
			return err
		}
		batch.Queue(`INSERT INTO mg_budget_resets (period, user_path, record) VALUES ($1, $2, $3)
			ON CONFLICT (period, user_path) DO UPDATE SET record = EXCLUDED.record`,
			k.Period.PathValue(), k.UserPath, string(v))
	}
	if batch.Len() == 0 {
		return nil
	}
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, b.db.Pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, batch).Close()
	}))
}

// forEach calls fn for every row of table (mg_budgets or
// mg_budget_resets) in key order, naming the row as records.BudgetName
// does ("daily/team").
func (b *Budgets) forEach(table string, fn func(name string, v []byte) error) error {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := b.db.Pool.Query(ctx, `SELECT period, user_path, record::text FROM `+table+` ORDER BY period, user_path`)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var period, path, v string
		if err := rows.Scan(&period, &path, &v); err != nil {
			return classify(err)
		}
		if err := fn(records.BudgetName(period, path), []byte(v)); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}
