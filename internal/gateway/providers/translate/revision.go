package translate

// Revision is a change a translation made to a request that the client
// did not ask for, such as a limit raised to fit the target's rules; the
// audit entry records it among the request's revisions.
type Revision struct {
	// Rewriter names the change.
	Rewriter string
	// Detail is a JSON object that says what changed.
	Detail string
}
