package sessions

// Storage persists the session limits written through the admin API
// (configuration limits are never stored). Every write returns once it
// is durable.
type Storage interface {
	// SessionLimits returns every stored limit.
	SessionLimits() ([]Limit, error)
	// PutSessionLimit stores l under its user path, replacing any.
	PutSessionLimit(l Limit) error
	// DeleteSessionLimit removes the limit of userPath; a missing one is
	// not an error.
	DeleteSessionLimit(userPath string) error
}
