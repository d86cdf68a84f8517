package redisstore

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// RateLimitTopic is the bus topic of rate-limit rule changes and resets.
const RateLimitTopic = "ratelimits"

// announceTimeout bounds the publication of one change.
const announceTimeout = time.Second

// closed reports whether Close has been called.
func (s *RateLimits) closed() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// Announce publishes an admin change made through this process's engine
// (wire it as limits.Options.OnChange) in the background, so that the
// admin answer never waits for Redis. A failure is logged: the other
// processes then see the change at their next periodic reload of shared
// settings (every second while the bus is down).
func (s *RateLimits) Announce(ch limits.Change) {
	payload, err := json.Marshal(ch)
	if err != nil {
		s.log.Error("redis rate limits: encoding a change", zap.Error(err))
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
		defer cancel()
		if err := s.c.Publish(ctx, RateLimitTopic, payload); err != nil {
			s.log.Warn("redis rate limits: could not announce a rule change to the other processes", zap.Error(err))
		}
	}()
}

// Follow calls apply (normally limits.Engine.ApplyChange) for every change
// another process announces, until Close. Changes this process announced
// are skipped. A message lost while Redis was away is made up for by the
// gateway's periodic reload of shared settings, which reloads the rules
// with the other shared domains (every second while the bus is down).
func (s *RateLimits) Follow(apply func(limits.Change) error) {
	s.c.Subscribe(RateLimitTopic, func(origin string, payload []byte) {
		if origin == s.c.ID() || s.closed() {
			return
		}
		var ch limits.Change
		if err := json.Unmarshal(payload, &ch); err != nil {
			s.log.Warn("redis rate limits: ignoring an unreadable change message", zap.Error(err))
			return
		}
		if err := apply(ch); err != nil {
			s.log.Warn("redis rate limits: applying a change from another process failed", zap.Error(err))
		}
	})
}
