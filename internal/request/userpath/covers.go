package userpath

// Covers reports whether prefix is path or above it (both normalized):
// the same path or a descendant at a segment boundary, so "/team" covers
// "/team" and "/team/app" but not "/team-alpha"; "/" covers every path.
// Rate limits, budgets, access policies, usage filters and secret
// policies all apply to a path and its descendants by this rule.
func Covers(prefix, path string) bool {
	if prefix == Root || prefix == path {
		return true
	}
	return len(path) > len(prefix) && path[len(prefix)] == '/' && path[:len(prefix)] == prefix
}
