package audit

// RecordUsage records a usage record that belongs to no audit entry of its
// own, such as one line of a batch the gateway ran in the background:
// live viewers see it and storage gets it through its queue. u's id is
// filled in from its Timestamp when missing; u.RequestID must be set by
// the caller. u must not be changed afterwards.
func (r *Recorder) RecordUsage(u *UsageRecord) {
	if r.usage == nil {
		return
	}
	if u.ID.IsZero() {
		u.ID = NewID(u.Timestamp)
	}
	if r.hub != nil {
		r.hub.PublishUsage(u)
	}
	if !r.usage.AppendUsage(u) {
		r.droppedUsage.Add(1)
	}
}
