package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// pinTimeout bounds one pin call: past it the session is routed from
// this process's memory.
const pinTimeout = 200 * time.Millisecond

// Pins implements vmodels.PinStore: one string per pin,
// "pin:<SHA-256 of the pin key in hex>" (the key holds the caller's user
// path and session id, kept out of key names), expiring after the idle
// time. While Redis is unreachable every call fails at once (after the
// first, for a second at a time) and the service uses its memory.
type Pins struct {
	c  *Client
	br breaker
}

var _ vmodels.PinStore = (*Pins)(nil)

// NewPins returns the session-pin store over c.
func NewPins(c *Client) *Pins {
	return &Pins{c: c, br: breaker{what: "session pins", log: c.logger}}
}

// key is the Redis key of pin key k.
func (p *Pins) key(k string) string {
	sum := sha256.Sum256([]byte(k))
	return p.c.Key("pin", hex.EncodeToString(sum[:]))
}

// Pin implements vmodels.PinStore with GETEX, which reads the pin and
// restarts its expiry in one call.
func (p *Pins) Pin(key string, idle time.Duration) (string, bool, error) {
	if err := p.br.allow(); err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pinTimeout)
	defer cancel()
	v, err := p.c.R.GetEx(ctx, p.key(key), idle).Result()
	if errors.Is(err, redis.Nil) {
		_ = p.br.done(nil)
		return "", false, nil
	}
	if err = p.br.done(err); err != nil {
		return "", false, fmt.Errorf("redis pins: %w", err)
	}
	return v, true, nil
}

// SetPin implements vmodels.PinStore.
func (p *Pins) SetPin(key, value string, idle time.Duration) error {
	if err := p.br.allow(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pinTimeout)
	defer cancel()
	if err := p.br.done(p.c.R.Set(ctx, p.key(key), value, idle).Err()); err != nil {
		return fmt.Errorf("redis pins: %w", err)
	}
	return nil
}
