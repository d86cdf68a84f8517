// Package boltstore implements the storage interfaces of modelgate's
// domain packages on the embedded bbolt store (package store): one file
// per domain, each with its own buckets and record format.
//
// The domain packages define the narrow interfaces they need (for
// example keys.Backend, limits.RuleStore and limits.CounterStore) and
// import neither bbolt nor this package; this package imports them. The
// app wires the implementations in, so another backend (PostgreSQL,
// Redis) is a new package implementing the same interfaces, with no change
// to handlers or domain logic.
//
// Administrative writes use synchronous transactions (store.Update) and
// return once durable; hot-path writes (counter snapshots, last-used
// times) go through the store's non-blocking batched queue
// (store.Enqueue).
package boltstore
