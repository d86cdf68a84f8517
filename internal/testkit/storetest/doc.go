// Package storetest holds contract tests for the domain storage
// interfaces (keys.Backend, limits.RuleStore, limits.CounterStore,
// budgets.Storage, vmodels.Storage, batches.Storage, sessions.Storage). Every
// implementation runs them, so that the embedded store and PostgreSQL
// behave the same: same ordering, same answers for missing entries, same
// replace semantics, same data after a restart. The suites named
// ...SurviveRestart (or ...SurvivesRestart) take an open func that
// returns the engine's storage as a newly started process sees it.
// Engine-specific behaviour (on-disk layouts and legacy formats, SQL
// errors, advisory locks, several processes on one database) stays in the
// engine's own tests.
package storetest
