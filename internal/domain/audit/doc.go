// Package audit is the record of every request the gateway serves: audit
// entries (who called what, how it went, with redacted headers and
// optional bodies), usage records (tokens and cost of each completed
// request), the aggregates and queries built on them (lists, stats,
// conversations, usage summaries and sessions), retention, and the live
// stream of request previews.
//
// The package stores nothing itself: it defines the storage it needs in
// [Storage] and reads and writes only through it. Writers never wait on
// storage: [Recorder] hands records to the store's queue and publishes
// previews to the [Hub] for live viewers.
//
// All times are UTC.
package audit
