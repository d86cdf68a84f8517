package boltstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/testkit/audittest"
)

// TestAuditContract runs the audit storage contract shared with the
// PostgreSQL store.
func TestAuditContract(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Storage {
		a, _ := openAudit(t)
		return a
	})
}
