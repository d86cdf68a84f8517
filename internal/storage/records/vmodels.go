package records

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// EncodeVirtualModel returns the stored form of the virtual model r: the
// row as JSON, with Managed cleared (configuration rows are never
// stored).
func EncodeVirtualModel(r vmodels.Row) ([]byte, error) {
	r.Managed = false
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("virtual model %q: %w", r.Source, err)
	}
	return b, nil
}

// DecodeVirtualModel reads a virtual model stored by EncodeVirtualModel
// under source; a stored row is never Managed. The error names source.
func DecodeVirtualModel(source string, b []byte) (vmodels.Row, error) {
	var r vmodels.Row
	if err := json.Unmarshal(b, &r); err != nil {
		return vmodels.Row{}, fmt.Errorf("virtual model %q: %w", source, err)
	}
	r.Managed = false
	return r, nil
}

// EncodeFailoverTargets returns the stored form of a failover route's
// targets: a JSON array of strings (null for a nil slice).
func EncodeFailoverTargets(targets []string) ([]byte, error) {
	return json.Marshal(targets)
}

// DecodeFailoverTargets reads the targets stored by EncodeFailoverTargets
// for primary. The error names primary.
func DecodeFailoverTargets(primary string, b []byte) ([]string, error) {
	var ts []string
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("failover route %q: %w", primary, err)
	}
	return ts, nil
}
