package redisstore

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// errSkipped is returned for a call not made because Redis failed a
// moment ago.
var errSkipped = errors.New("redis: unreachable a moment ago; not retried yet")

// breaker skips calls to Redis for a second after one failed, so that a
// server that is down costs one timeout a second rather than one per
// request, and logs the first failure and the recovery.
type breaker struct {
	what      string
	log       *zap.Logger
	downUntil atomic.Int64 // unix nanos; 0 while Redis answers
	down      atomic.Bool
}

// isReply reports an error the server answered (a key of another type,
// say), as opposed to a failure to reach it.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// breakerPause is how long calls are skipped after a failure.
const breakerPause = time.Second

// allow returns errSkipped while calls are being skipped. Once the
// pause is over one caller probes Redis while the others are skipped for
// another pause, so a server still down delays one request, not a burst.
func (b *breaker) allow() error {
	until := b.downUntil.Load()
	if until == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	if now >= until && b.downUntil.CompareAndSwap(until, now+int64(breakerPause)) {
		return nil
	}
	return errSkipped
}

// done records the outcome of a call and returns err. An error the
// server answered (redis.Nil, a key of another type) shows it is up.
func (b *breaker) done(err error) error {
	if err == nil || errors.Is(err, redis.Nil) || isReply(err) {
		if b.downUntil.Load() != 0 {
			b.downUntil.Store(0)
		}
		if b.down.CompareAndSwap(true, false) {
			b.log.Info("redis answers again", zap.String("store", b.what))
		}
		return err
	}
	b.downUntil.Store(time.Now().Add(breakerPause).UnixNano())
	if b.down.CompareAndSwap(false, true) {
		b.log.Warn("redis is unreachable; serving without it until it returns", zap.String("store", b.what), zap.Error(err))
	}
	return err
}
