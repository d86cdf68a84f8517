package caddymodule

import "time"

// DefaultReadBodyTimeout is how long a client has, by default, to send a
// whole request body, counted from the moment the gateway's first handler
// sees the request.
const DefaultReadBodyTimeout = time.Minute

// EffectiveReadBodyTimeout is how long a client has to send a whole
// request body: the configured read_body_timeout, or
// DefaultReadBodyTimeout when it is unset or zero. A client still sending when it runs out has its
// connection closed, whether or not its credential was valid.
func (a *App) EffectiveReadBodyTimeout() time.Duration {
	if a.ReadBodyTimeout > 0 {
		return time.Duration(a.ReadBodyTimeout)
	}
	return DefaultReadBodyTimeout
}
