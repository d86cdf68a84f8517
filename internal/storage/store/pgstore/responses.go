package pgstore

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/responses"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// The responses domain's table: one row per stored response, the record
// as JSON bytes, with its creation time as a column for the retention
// sweep.
var _ = register("responses",
	`CREATE TABLE mg_responses (
		id         text COLLATE "C" PRIMARY KEY,
		created_at timestamptz NOT NULL,
		record     bytea NOT NULL
	)`,
	`CREATE INDEX mg_responses_created_at ON mg_responses (created_at)`,
)

// Responses implements responses.Storage in PostgreSQL. Every write is
// committed when it returns; the responses service batches them off the
// request path.
type Responses struct{ db *DB }

var _ responses.Storage = Responses{}

// NewResponses returns the stored-responses storage over db.
func NewResponses(db *DB) Responses { return Responses{db} }

// PutResponses implements responses.Storage: one batch of upserts in one
// transaction.
func (s Responses) PutResponses(recs []*responses.Record) error {
	batch := &pgx.Batch{}
	for _, r := range recs {
		rec, err := records.EncodeResponse(r)
		if err != nil {
			return err
		}
		batch.Queue(`INSERT INTO mg_responses (id, created_at, record) VALUES ($1, $2, $3)
			ON CONFLICT (id) DO UPDATE SET created_at = EXCLUDED.created_at, record = EXCLUDED.record`, r.ID, r.CreatedAt, rec)
	}
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, batch).Close()
	}))
}

// Response implements responses.Storage.
func (s Responses) Response(id string) (*responses.Record, error) {
	ctx, cancel := opContext()
	defer cancel()
	var rec []byte
	err := s.db.Pool.QueryRow(ctx, `SELECT record FROM mg_responses WHERE id = $1`, id).Scan(&rec)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, responses.ErrNotFound
	}
	if err != nil {
		return nil, classify(err)
	}
	return records.DecodeResponse(id, rec)
}

// DeleteResponse implements responses.Storage.
func (s Responses) DeleteResponse(id string) error {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM mg_responses WHERE id = $1`, id)
	if err != nil {
		return classify(err)
	}
	if tag.RowsAffected() == 0 {
		return responses.ErrNotFound
	}
	return nil
}

// DeleteResponsesBefore implements responses.Storage.
func (s Responses) DeleteResponsesBefore(t time.Time) (int, error) {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM mg_responses WHERE created_at < $1`, t)
	if err != nil {
		return 0, classify(err)
	}
	return int(tag.RowsAffected()), nil
}
