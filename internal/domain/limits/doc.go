// Package limits is modelgate's rate-limit engine: sliding request and token
// windows and in-flight concurrency gauges for user-path, provider and model
// rules, with per-child templates, admin operations (upsert, delete, reset)
// and snapshots of the counters through the storage interfaces of
// storage.go (RuleStore, CounterStore), which the app wires to a store.
//
// Admission is in memory and lock-light: the rule set is an immutable
// snapshot swapped atomically by admin operations, and each counter has its
// own mutex. An admission locks the counters of every matching rule (in a
// global order, so concurrent admissions cannot deadlock), checks them all
// and consumes only if none is exhausted, so a rejected request consumes
// nothing. The allowed path does not allocate.
//
// Request windows use the sliding-window estimate
//
//	used = current + ceil(previous × (period − elapsed) / period)
//
// over fixed windows aligned to the Unix epoch; a request is admitted while
// used + 1 ≤ cap. Token windows use the same estimate; tokens are charged when
// the request completes ([Admission.Done]), so a request may overshoot.
//
// Several processes share their windows and concurrency slots through a
// [Shared] backend (Options.Shared): each admission is then one call to it,
// checking and consuming all matching rules atomically, and concurrency
// slots are leases that expire when the process holding them dies. While
// the backend does not answer, admission falls back to the in-memory
// counters of each process, or refuses (Options.SharedFailClosed). Admin
// changes are handed to Options.OnChange for the other processes, which
// follow them with [Engine.ApplyChange].
//
// The package imports neither Caddy nor a storage engine; the rate-limit
// handler, the admin API and the app wiring use [Engine].
package limits
