package limits

// MatchPath returns userPath in the form user-path rules are matched on
// (normalized and lower-cased), or why it is not a valid user path. Other
// domains that key per-user-path settings the way rate-limit rules are
// (session limits) use it so that both match alike.
func MatchPath(userPath string) (string, error) { return matchPath(userPath) }

// TemplateChild returns the path of the child partition a per_child
// template on subject puts path in ("/customers" and
// "/customers/alice/app" give "/customers/alice"); ok is false when path
// is subject itself or not below it, where the template does not apply.
func TemplateChild(subject, path string) (child string, ok bool) {
	c, ok := childOf(subject, path)
	if !ok {
		return "", false
	}
	return childPath(subject, c), true
}
