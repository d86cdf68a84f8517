package reqinfo

// Routed is the target a virtual model was resolved to by a stage that
// runs before the proxy (the response cache, whose key names it), for the
// proxy to route the request there instead of resolving the virtual model
// again: the request then reaches the target its cache key names, and a
// weighted round robin or a session pin moves once per request.
type Routed struct {
	// Requested is the virtual model's source, the model the client
	// sent; empty when no stage resolved one.
	Requested string
	// Provider is the provider instance name of the target.
	Provider string
	// Model is the model id on that provider.
	Model string
	// Slowdown is the factor the answer is delayed by (0: none).
	Slowdown float64
}

// SetRouted records r, the target an earlier stage resolved the requested
// virtual model to.
func (i *Info) SetRouted(r Routed) { i.routed = r }

// TakeRouted returns the target recorded by SetRouted when it was
// resolved for requested, and forgets it: a later resolution of the same
// request (a failover target) picks afresh.
func (i *Info) TakeRouted(requested string) (Routed, bool) {
	r := i.routed
	if r.Requested == "" || r.Requested != requested {
		return Routed{}, false
	}
	i.routed = Routed{}
	return r, true
}
