package admin

// Domains an admin write can change, as passed to ChangeNotifier.Changed.
const (
	// ChangedKeys: a managed API key was created, updated, deactivated or
	// deleted.
	ChangedKeys = "keys"
	// ChangedVirtualModels: a virtual model or failover route was written
	// or deleted.
	ChangedVirtualModels = "vmodels"
	// ChangedBudgets: a budget was written, deleted or reset, or the
	// budget settings were written.
	ChangedBudgets = "budgets"
	// ChangedRateLimits: a rate-limit rule was written or deleted. The
	// rate-limit engine announces its own changes (with the resets of
	// windows); the domain names its rules' reload among the others.
	ChangedRateLimits = "ratelimits"
	// ChangedPricing: a price override was written or deleted.
	ChangedPricing = "pricing"
	// ChangedSessionLimits: a session limit was written or deleted.
	ChangedSessionLimits = "sessionlimits"
)

// ChangeNotifier is told the domain of every successful admin write, after
// the change is stored and in force here, so that other gateway processes
// sharing the storage can reload that domain. Changed must not block for
// long: the admin answer waits for it.
type ChangeNotifier interface {
	Changed(domain string)
}

// changed tells Options.Changes, when set, that domain changed.
func (h *Handler) changed(domain string) {
	if h.opts.Changes != nil {
		h.opts.Changes.Changed(domain)
	}
}
