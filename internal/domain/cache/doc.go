// Package cache is the exact-match response cache: answers to model
// requests stored under a key that covers the endpoint, the resolved
// provider and model, whether the answer streams, the caller's user path
// (unless the scope is global) and the request body with its JSON object
// keys sorted, so key order and white space do not matter.
//
// Only complete 200 answers are stored; a stream is stored as its full
// sequence of flushed writes, so a hit replays it with the same framing.
// Entries expire after the TTL, and the total size of the stored entries
// never exceeds MaxBytes: the least recently used entries go first.
// Identical misses in flight at once make one upstream call (Begin).
//
// Entries persist through a Storage (store/boltstore implements it on the
// embedded bbolt file); the index used for eviction and statistics is kept
// in memory and rebuilt from the storage on Open. Every store writes an
// entry in the one binary form of AppendMeta and AppendAnswer, after the
// Format byte. The package does not import Caddy.
package cache
