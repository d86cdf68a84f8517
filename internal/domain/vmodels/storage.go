package vmodels

import "time"

// Row is a virtual model as the admin API shows it: the declarative row
// with its timestamps and whether configuration manages it.
type Row struct {
	VirtualModel
	// Managed reports a row supplied by configuration (YAML or
	// VIRTUAL_MODELS). It is never stored, and such rows are read-only to
	// the admin API.
	Managed bool `json:"managed"`
	// CreatedAt is when the row was first stored; for a managed row, when
	// the configuration declaring it was loaded.
	CreatedAt *time.Time `json:"created_at,omitempty"`
	// UpdatedAt is when the row was last written; for a managed row, when
	// the configuration declaring it was loaded.
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// Storage persists the virtual models and failover routes written through
// the admin API (configuration rows are never stored). Every write
// returns once it is durable.
type Storage interface {
	// VirtualModels returns every stored row.
	VirtualModels() ([]Row, error)
	// PutVirtualModel stores r under its source, replacing any row there,
	// and removes the row under oldSource when that is set and differs
	// (a rename), in one transaction.
	PutVirtualModel(r Row, oldSource string) error
	// DeleteVirtualModel removes the row of source; a missing row is not
	// an error.
	DeleteVirtualModel(source string) error
	// FailoverRoutes returns every stored failover route.
	FailoverRoutes() (Failover, error)
	// PutFailoverRoute stores the targets of primary, replacing any.
	PutFailoverRoute(primary string, targets []string) error
	// DeleteFailoverRoute removes the route of primary; a missing route is
	// not an error.
	DeleteFailoverRoute(primary string) error
}
