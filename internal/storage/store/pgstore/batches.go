package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// The batches domain's tables: files (the record as JSON bytes and the
// content), batches (the record as JSON bytes) and the result of each
// line of a batch. Records are kept byte for byte (bytea), since results
// hold answers exactly as the pipeline gave them.
var _ = register("batches",
	`CREATE TABLE mg_batch_files (
		id      text COLLATE "C" PRIMARY KEY,
		record  bytea NOT NULL,
		content bytea NOT NULL
	)`,
	`CREATE TABLE mg_batches (
		id     text COLLATE "C" PRIMARY KEY,
		record bytea NOT NULL
	)`,
	`CREATE TABLE mg_batch_results (
		batch_id text COLLATE "C" NOT NULL,
		line     bigint NOT NULL,
		record   bytea NOT NULL,
		PRIMARY KEY (batch_id, line)
	)`,
)

// Batches implements batches.Storage in PostgreSQL. Every write is
// committed when it returns.
type Batches struct{ db *DB }

var _ batches.Storage = Batches{}

// NewBatches returns the batches storage over db.
func NewBatches(db *DB) Batches { return Batches{db} }

// PutFile implements batches.Storage.
func (b Batches) PutFile(f *batches.File, content []byte) error {
	rec, err := records.EncodeFile(f)
	if err != nil {
		return err
	}
	if content == nil {
		content = []byte{}
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = b.db.Pool.Exec(ctx, `INSERT INTO mg_batch_files (id, record, content) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, content = EXCLUDED.content`, f.ID, rec, content)
	return classify(err)
}

// File implements batches.Storage.
func (b Batches) File(id string) (*batches.File, error) {
	rec, err := b.get(`SELECT record FROM mg_batch_files WHERE id = $1`, id)
	if err != nil {
		return nil, err
	}
	return records.DecodeFile(id, rec)
}

// FileContent implements batches.Storage.
func (b Batches) FileContent(id string) ([]byte, error) {
	ctx, cancel := opContext()
	defer cancel()
	var out []byte
	err := b.db.Pool.QueryRow(ctx, `SELECT content FROM mg_batch_files WHERE id = $1`, id).Scan(&out)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, batches.ErrNotFound
	}
	if out == nil && err == nil {
		out = []byte{}
	}
	return out, classify(err)
}

// Files implements batches.Storage: ids sort by creation time, so id
// order is oldest first.
func (b Batches) Files() ([]*batches.File, error) {
	var out []*batches.File
	err := b.forEach(`SELECT id, record FROM mg_batch_files ORDER BY id`, nil, func(id string, v []byte) error {
		f, err := records.DecodeFile(id, v)
		if err != nil {
			return err
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

// DeleteFile implements batches.Storage.
func (b Batches) DeleteFile(id string) error {
	ctx, cancel := opContext()
	defer cancel()
	tag, err := b.db.Pool.Exec(ctx, `DELETE FROM mg_batch_files WHERE id = $1`, id)
	if err != nil {
		return classify(err)
	}
	if tag.RowsAffected() == 0 {
		return batches.ErrNotFound
	}
	return nil
}

// PutBatch implements batches.Storage.
func (b Batches) PutBatch(bt *batches.Batch) error {
	rec, err := records.EncodeBatch(bt)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err = b.db.Pool.Exec(ctx, upsertBatch, bt.ID, rec)
	return classify(err)
}

// upsertBatch stores a batch record ($1 id, $2 record).
const upsertBatch = `INSERT INTO mg_batches (id, record) VALUES ($1, $2)
	ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record`

// Batch implements batches.Storage.
func (b Batches) Batch(id string) (*batches.Batch, error) {
	rec, err := b.get(`SELECT record FROM mg_batches WHERE id = $1`, id)
	if err != nil {
		return nil, err
	}
	return records.DecodeBatch(id, rec)
}

// Batches implements batches.Storage: ids sort by creation time, so id
// order is oldest first.
func (b Batches) Batches() ([]*batches.Batch, error) {
	var out []*batches.Batch
	err := b.forEach(`SELECT id, record FROM mg_batches ORDER BY id`, nil, func(id string, v []byte) error {
		bt, err := records.DecodeBatch(id, v)
		if err != nil {
			return err
		}
		out = append(out, bt)
		return nil
	})
	return out, err
}

// DeleteBatch implements batches.Storage: the batch and its results go
// in one transaction.
func (b Batches) DeleteBatch(id string) error {
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, b.db.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM mg_batches WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return batches.ErrNotFound
		}
		_, err = tx.Exec(ctx, `DELETE FROM mg_batch_results WHERE batch_id = $1`, id)
		return err
	}))
}

// PutResult implements batches.Storage: the result and the batch record
// are written in one transaction.
func (b Batches) PutResult(bt *batches.Batch, r *batches.Result) error {
	rec, err := records.EncodeBatch(bt)
	if err != nil {
		return err
	}
	res, err := records.EncodeResult(r)
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	return classify(pgx.BeginFunc(ctx, b.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, upsertBatch, bt.ID, rec); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO mg_batch_results (batch_id, line, record) VALUES ($1, $2, $3)
			ON CONFLICT (batch_id, line) DO UPDATE SET record = EXCLUDED.record`, bt.ID, int64(r.Line), res)
		return err
	}))
}

// Results implements batches.Storage, by line.
func (b Batches) Results(id string) ([]*batches.Result, error) {
	var out []*batches.Result
	err := b.forEach(`SELECT batch_id, record FROM mg_batch_results WHERE batch_id = $1 ORDER BY line`, []any{id}, func(_ string, v []byte) error {
		r, err := records.DecodeResult(id, v)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// get returns the record query selects for id, or batches.ErrNotFound.
func (b Batches) get(query, id string) ([]byte, error) {
	ctx, cancel := opContext()
	defer cancel()
	var rec []byte
	err := b.db.Pool.QueryRow(ctx, query, id).Scan(&rec)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, batches.ErrNotFound
	}
	return rec, classify(err)
}

// forEach calls fn with the id and the record of every row query selects.
func (b Batches) forEach(query string, args []any, fn func(id string, v []byte) error) error {
	ctx, cancel := opContext()
	defer cancel()
	rows, err := b.db.Pool.Query(ctx, query, args...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  string
			rec []byte
		)
		if err := rows.Scan(&id, &rec); err != nil {
			return classify(err)
		}
		if err := fn(id, rec); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}

// batchClaimClass is the first key of the advisory locks that claim
// batches; the second is a hash of the batch id.
const batchClaimClass = 0x6d67_6261 // "mgba"

// Claim implements batches.Claimer with a session advisory lock held on a
// connection of its own: it is released by release, or by PostgreSQL when
// the claiming process dies and its connection closes.
func (b Batches) Claim(ctx context.Context, id string) (release func(), ok bool, err error) {
	conn, err := b.db.Pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("postgres: claiming a batch: %w", classify(err))
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, int32(batchClaimClass), id).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, fmt.Errorf("postgres: claiming a batch: %w", classify(err))
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, int32(batchClaimClass), id); err != nil {
			// The lock must not outlive the run: drop the connection.
			_ = conn.Conn().Close(ctx)
		}
		conn.Release()
	}, true, nil
}
