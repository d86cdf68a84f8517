package vmodels

import "fmt"

// RowError is a virtual model that cannot be put in force, named by its
// source: a target on an unknown provider, a chain that loops or is too
// deep. Whoever loaded the row can say where it came from.
type RowError struct {
	// Source is the row's source.
	Source string
	// Err is what is wrong with it.
	Err error
}

// Error implements error: `virtual model "<source>": <what is wrong>`.
func (e *RowError) Error() string { return fmt.Sprintf("virtual model %q: %v", e.Source, e.Err) }

// Unwrap returns what is wrong with the row.
func (e *RowError) Unwrap() error { return e.Err }
