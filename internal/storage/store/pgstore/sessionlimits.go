package pgstore

import (
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// mg_session_limits holds the admin-written session limits, one row per
// user path, the limit as JSON.
var _ = register("session_limits",
	`CREATE TABLE mg_session_limits (
		user_path text COLLATE "C" PRIMARY KEY,
		record    jsonb NOT NULL
	)`,
)

// SessionLimits implements sessions.Storage in PostgreSQL; every write is
// committed when it returns.
type SessionLimits struct{ db *DB }

var _ sessions.Storage = SessionLimits{}

// NewSessionLimits returns the session-limit storage over db.
func NewSessionLimits(db *DB) SessionLimits { return SessionLimits{db} }

// SessionLimits implements sessions.Storage.
func (s SessionLimits) SessionLimits() ([]sessions.Limit, error) {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := s.db.Pool.Query(ctx, `SELECT user_path, record::text FROM mg_session_limits ORDER BY user_path`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []sessions.Limit
	for rows.Next() {
		var path, v string
		if err := rows.Scan(&path, &v); err != nil {
			return nil, classify(err)
		}
		l, err := records.DecodeSessionLimit(path, []byte(v))
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, classify(rows.Err())
}

// PutSessionLimit implements sessions.Storage.
func (s SessionLimits) PutSessionLimit(l sessions.Limit) error {
	v, err := records.EncodeSessionLimit(l)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = s.db.Pool.Exec(ctx, `INSERT INTO mg_session_limits (user_path, record) VALUES ($1, $2)
		ON CONFLICT (user_path) DO UPDATE SET record = EXCLUDED.record`, l.UserPath, string(v))
	return classify(err)
}

// DeleteSessionLimit implements sessions.Storage.
func (s SessionLimits) DeleteSessionLimit(userPath string) error {
	ctx, cancel := opContext()
	defer cancel()
	_, err := s.db.Pool.Exec(ctx, `DELETE FROM mg_session_limits WHERE user_path = $1`, userPath)
	return classify(err)
}
