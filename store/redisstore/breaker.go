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
	downUntil atomic.Int64 // unix nanos
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

// allow returns errSkipped while calls are being skipped.
func (b *breaker) allow() error {
	if time.Now().UnixNano() < b.downUntil.Load() {
		return errSkipped
	}
	return nil
}

// done records the outcome of a call and returns err. An error the
// server answered (redis.Nil, a key of another type) shows it is up.
func (b *breaker) done(err error) error {
	if err == nil || errors.Is(err, redis.Nil) || isReply(err) {
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
