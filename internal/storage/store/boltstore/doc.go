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
//
// Audit entries and usage records (Audit) are written by the batched
// writer, a batch at a time: an entry's head (the entry without bodies,
// in a binary format that carries the fields lists filter on) under its
// id; the bodies of the batch's entries packed into body chunks that the
// heads point to; one index posting per indexed term and 256 ms slot,
// listing the batch's entries with that term; usage records in a binary
// format; and the aggregate rows the batch adds to. Stores written by
// earlier versions (JSON heads with separate metas and bodies, one index
// key per entry and term, JSON usage records) are read and cleaned up by
// retention alike; nothing is migrated. The layouts are described at
// headVersion, usageVersion, slotLen and chunkTarget.
package boltstore
