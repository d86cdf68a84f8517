// Package store is modelgate's embedded persistence layer: a single bbolt
// file with one batched background writer.
//
// Hot paths (audit records, usage and rate-limit counters) hand writes to
// [Store.Enqueue], which never blocks: the Write (not the bytes it points
// to) is copied into a bounded queue and committed later by the writer
// goroutine, which groups queued writes into one bbolt transaction per
// batch. The writer commits what is queued every [Options.FlushInterval],
// and immediately once [Options.MaxBatch] writes, or writes holding
// [Options.MaxBatchBytes] bytes ([Write.Size]), are waiting. [Store.Flush] waits until everything
// enqueued before it is committed; [Store.Close] stops accepting writes,
// commits everything already queued and closes the file.
//
// A write is either a put or delete of one key, or an [Write.Apply] func
// that runs inside the batch's transaction, for read-modify-write updates
// such as aggregates kept in step with the records they sum. A batch whose
// commit fails is kept and retried with growing pauses, not discarded,
// unless the failure is a record's own, one retrying cannot fix (see
// [RecordReason]: bbolt refusing a key too large, a record that does not
// encode): the batch is then split to find that record, which alone is
// dropped, counted by kind and reason ([Store.Drops]) and logged, while
// the others commit.
//
// Reads use [Store.View]; rare administrative writes may use [Store.Update]
// directly, which bbolt serialises with the writer's transactions.
//
// The package deliberately does not import Caddy; *Store nevertheless
// satisfies caddy.Destructor through [Store.Destruct] so it can live in a
// caddy.UsagePool.
package store
