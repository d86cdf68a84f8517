package config

import (
	"fmt"
	"time"
)

// Realtime bounds realtime (WebSocket) sessions.
type Realtime struct {
	// IdleTimeout ends a session in which neither side sent a message for
	// this long, with close code 1000. A Go duration ("90s"); default 5m.
	IdleTimeout string `yaml:"idle_timeout,omitempty" json:"idle_timeout,omitempty"`
	// MaxDuration ends any session this long, with close code 1008. A Go
	// duration; default 60m.
	MaxDuration string `yaml:"max_duration,omitempty" json:"max_duration,omitempty"`
}

// Limits returns the parsed bounds; 0 for one not set (the default
// applies). A value that is not a positive duration is an error.
func (r Realtime) Limits() (idle, max time.Duration, err error) {
	parse := func(name, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("realtime.%s: %q is not a positive duration", name, s)
		}
		return d, nil
	}
	if idle, err = parse("idle_timeout", r.IdleTimeout); err != nil {
		return 0, 0, err
	}
	max, err = parse("max_duration", r.MaxDuration)
	return idle, max, err
}
