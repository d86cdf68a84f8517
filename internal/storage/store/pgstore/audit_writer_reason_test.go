package pgstore

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRecordReasonOnlyBlamesTheRecordForItsOwnFaults: only data,
// integrity and program-limit errors drop a record; a schema, privilege,
// transaction-state or connection error is retried, so a missing table
// or a revoked grant never empties the queue record by record.
func TestRecordReasonOnlyBlamesTheRecordForItsOwnFaults(t *testing.T) {
	for code, want := range map[string]string{
		"22003": "data_exception",
		"22P05": "data_exception",
		"23505": "integrity_violation",
		"54000": "limit_exceeded",
		"42P01": "", // undefined table
		"42501": "", // insufficient privilege
		"25P02": "", // in failed transaction
		"08006": "", // connection failure
		"40001": "", // serialization failure
		"57P01": "", // admin shutdown
	} {
		err := fmt.Errorf("insert: %w", &pgconn.PgError{Code: code})
		got, ok := recordReason(err)
		if got != want || ok != (want != "") {
			t.Errorf("%s: recordReason = %q, %v; want %q", code, got, ok, want)
		}
	}
	if _, ok := recordReason(fmt.Errorf("dial tcp: connection refused")); ok {
		t.Error("a network error blamed on the record")
	}
}
