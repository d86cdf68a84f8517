package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// mg_rate_limit_rules holds the manual rate-limit rules, one row per
// normalized rule key (scope, period label such as "minute" or "90s",
// subject), the rule itself in its JSON form.
var _ = register("rate_limits",
	`CREATE TABLE mg_rate_limit_rules (
		scope      text COLLATE "C" NOT NULL,
		period     text COLLATE "C" NOT NULL,
		subject    text COLLATE "C" NOT NULL,
		rule       jsonb NOT NULL,
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (scope, period, subject)
	)`,
)

// RateLimitRules implements limits.RuleStore in PostgreSQL. The window
// counters stay in the embedded store (or Redis), never here.
type RateLimitRules struct{ db *DB }

var _ limits.RuleStore = RateLimitRules{}

// NewRateLimitRules returns the rule store over db.
func NewRateLimitRules(db *DB) RateLimitRules { return RateLimitRules{db} }

// LoadRules implements limits.RuleStore: a row whose rule cannot be
// decoded is skipped with an error naming its key.
func (r RateLimitRules) LoadRules() ([]limits.Rule, []error, error) {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := r.db.Pool.Query(ctx, `SELECT scope, period, subject, rule::text FROM mg_rate_limit_rules
		ORDER BY scope, period, subject`)
	if err != nil {
		return nil, nil, classify(err)
	}
	defer rows.Close()
	var (
		out     []limits.Rule
		skipped []error
	)
	for rows.Next() {
		var scope, period, subject, body string
		if err := rows.Scan(&scope, &period, &subject, &body); err != nil {
			return nil, nil, classify(err)
		}
		rule, err := records.DecodeRule(records.RuleName(scope, period, subject), []byte(body))
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		out = append(out, rule)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, classify(err)
	}
	return out, skipped, nil
}

// ReplaceRule implements limits.RuleStore in one transaction.
func (r RateLimitRules) ReplaceRule(put *limits.Rule, del *limits.Key) error {
	var body []byte
	if put != nil {
		var err error
		if body, err = records.EncodeRule(*put); err != nil {
			return err
		}
	}
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, r.db.Pool, func(tx pgx.Tx) error {
		if del != nil {
			k := del.Normalize()
			if _, err := tx.Exec(ctx, `DELETE FROM mg_rate_limit_rules WHERE scope = $1 AND period = $2 AND subject = $3`,
				string(k.Scope), k.PeriodLabel(), k.Subject); err != nil {
				return err
			}
		}
		if put != nil {
			k := put.Key()
			return upsertRule(ctx, tx, k, body)
		}
		return nil
	}))
}

// upsertRule stores body under k, replacing any row there.
func upsertRule(ctx context.Context, tx pgx.Tx, k limits.Key, body []byte) error {
	_, err := tx.Exec(ctx, `INSERT INTO mg_rate_limit_rules (scope, period, subject, rule) VALUES ($1, $2, $3, $4)
		ON CONFLICT (scope, period, subject) DO UPDATE SET rule = EXCLUDED.rule, updated_at = now()`,
		string(k.Scope), k.PeriodLabel(), k.Subject, string(body))
	return err
}
