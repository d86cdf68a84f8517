package store

import "go.etcd.io/bbolt"

// BatchHook is told about each batch's read-write transaction: BeginBatch
// before the batch's writes are applied, EndBatch after them, before the
// commit. Both run on the writer goroutine, also for every retry of a
// failed batch (a fresh transaction, the writes applied again).
type BatchHook interface {
	// BeginBatch starts a transaction's batch: state kept for the
	// previous attempt is dropped.
	BeginBatch()
	// EndBatch runs after the batch's writes, inside its transaction. Its
	// error fails the transaction, which is retried like a failed commit,
	// so it should return only errors of the transaction itself.
	EndBatch(tx *bbolt.Tx) error
	// BatchDone runs once a batch is over: committed, or given up after
	// its retries. State kept from one try of a batch to the next (what
	// its writes' Take prepared) is dropped there.
	BatchDone()
}

// OnBatch registers h for every batch from now on. A domain uses it to
// write, once per batch, what its writes accumulated (aggregate rows that
// many records add to). Hooks run in the order registered; register them
// before queueing the writes they finish.
func (s *Store) OnBatch(h BatchHook) {
	s.batchMu.Lock()
	defer s.batchMu.Unlock()
	hooks := append(append([]BatchHook(nil), s.batchHooksList()...), h)
	s.batchHooks.Store(&hooks)
}

// batchHooksList returns the registered hooks.
func (s *Store) batchHooksList() []BatchHook {
	if p := s.batchHooks.Load(); p != nil {
		return *p
	}
	return nil
}
