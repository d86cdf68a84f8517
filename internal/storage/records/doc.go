// Package records holds the persisted form of each domain's records,
// shared by every storage engine: how a virtual model, a budget, a
// rate-limit rule, a batch or an audit body record becomes the bytes an
// engine stores, and how those bytes become the record again, with the
// validation, normalisation and error wrapping every engine applies on
// read.
//
// It is pure encoding and does no I/O: the engines (boltstore, pgstore)
// do the transactions, buckets and SQL, and call this package for the
// bytes. Where the engines still write different bytes for the same
// record (a bbolt binary head against PostgreSQL columns), the
// engine-specific form stays in the engine and only the shared parts are
// here; a persisted format never changes here without a migration.
//
// Managed keys are not here: the keys package encodes its own entries
// and hands every engine opaque names and values (keys.Backend), so the
// engines already only store them.
//
// It imports the domain packages, never a storage engine and never Caddy.
package records
