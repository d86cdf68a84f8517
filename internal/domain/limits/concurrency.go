package limits

// In-flight accounting.
//
// Gauges and child partitions carry an in-flight count (counter.inFlight):
// the number of admitted requests holding them that have not called
// Admission.Done yet. For a concurrent rule it is the gauge checked against
// MaxRequests; for a window partition it keeps the partition from being
// evicted while a long request (a stream, a realtime session) still holds
// it, so its tokens are charged at Done. A rule's own window counter does
// not track it.
//
// The count is raised only under the counter's mutex, together with the
// cap check, by an admission that holds the mutexes of all its counters;
// it is lowered by Done with a plain atomic add. A concurrent decrement can
// only make the check more permissive, never let the count exceed the cap.
// Gauges are never persisted and never cleared by resets: active slots are
// released when their requests finish.

// inFlightFull reports whether a concurrent rule with cap limit has no free
// slot. Caller holds c.mu.
func (c *counter) inFlightFull(limit int64) bool {
	return limit > 0 && c.inFlight.Load() >= limit
}

// acquire takes one in-flight slot (or hold, for window partitions). Caller
// holds c.mu and has checked the cap.
func (c *counter) acquire() {
	if c.holds {
		c.inFlight.Add(1)
	}
}

// release gives back one slot taken by acquire.
func (c *counter) release() {
	if c.holds {
		c.inFlight.Add(-1)
	}
}
