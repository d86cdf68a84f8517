package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/batches"
)

// The batches records are a file's record (its content is stored apart,
// as uploaded), a batch, and the result of one line of a batch, each the
// JSON form of its batches type. They are stored and read back byte for
// byte: a result holds the answer exactly as the pipeline gave it.

// EncodeFile returns the stored form of the file record f (not its
// content).
func EncodeFile(f *batches.File) ([]byte, error) { return json.Marshal(f) }

// DecodeFile reads the record of file id stored by EncodeFile; the error
// names id.
func DecodeFile(id string, b []byte) (*batches.File, error) {
	var f batches.File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("batch file %q: %w", id, err)
	}
	return &f, nil
}

// EncodeBatch returns the stored form of the batch b.
func EncodeBatch(b *batches.Batch) ([]byte, error) { return json.Marshal(b) }

// DecodeBatch reads the batch id stored by EncodeBatch; the error names
// id.
func DecodeBatch(id string, b []byte) (*batches.Batch, error) {
	var bt batches.Batch
	if err := json.Unmarshal(b, &bt); err != nil {
		return nil, fmt.Errorf("batch %q: %w", id, err)
	}
	return &bt, nil
}

// EncodeResult returns the stored form of the line result r.
func EncodeResult(r *batches.Result) ([]byte, error) { return json.Marshal(r) }

// DecodeResult reads a line result of batch batchID stored by
// EncodeResult; the error names the batch. The result's body is a copy
// of b's.
func DecodeResult(batchID string, b []byte) (*batches.Result, error) {
	var r batches.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("batch %q: result: %w", batchID, err)
	}
	return &r, nil
}
