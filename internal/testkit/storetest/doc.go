// Package storetest holds contract tests for the domain storage
// interfaces (keys.Backend, limits.RuleStore, budgets.Storage,
// vmodels.Storage, batches.Storage). Every implementation runs them, so
// that the embedded store and PostgreSQL behave the same: same ordering,
// same answers for missing entries, same replace semantics.
package storetest
