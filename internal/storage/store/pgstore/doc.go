// Package pgstore keeps the gateway's shared state in PostgreSQL, so that
// several gateway processes behind one load balancer see the same keys,
// rules, budgets, virtual models, audit entries and usage records.
//
// Each domain's storage interface (keys.Backend, limits.RuleStore,
// budgets.Storage, vmodels.Storage, audit.Storage, batches.Storage) has an
// implementation here over one [DB]. The schema is created and migrated by
// [Open]: every domain registers its own numbered migrations, applied in
// order inside one transaction that holds an advisory lock, so processes
// starting together migrate once.
package pgstore
