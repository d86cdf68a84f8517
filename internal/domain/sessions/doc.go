// Package sessions guards against runaway sessions: per user path, limits
// on one detected session (see audit.DetectSession) — how many requests it
// makes, how much it spends, and how often in a row it gets the same
// answer (the same tool call with the same arguments, or the same error).
// A session over a limit is refused until the client starts a new one.
//
// The limits come from the configuration and from the admin API (stored
// through Storage); the per-session counters live in memory, bounded and
// expiring, per process.
package sessions
