package caddymodule

import (
	"sync"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
)

// Bus topics between gateway processes.
const (
	// topicLive carries batches of live log events (audit.EncodeLiveBatch).
	topicLive = "live"
	// topicChanges carries the name of a domain changed by an admin write
	// (admin.Changed*).
	topicChanges = "changes"
)

// busRouters holds the router of each Redis client in use. A client
// outlives config reloads and cannot take a bus handler back, so the
// handlers are subscribed once per client and each started app joins and
// leaves its client's router instead.
var (
	busRoutersMu sync.Mutex
	busRouters   = map[*redisstore.Client]*busRouter{}
)

// busRouter hands the messages other processes publish on the bus to the
// fan-outs of the apps started over one client.
type busRouter struct {
	c  *redisstore.Client
	mu sync.RWMutex
	fs map[*fanout]struct{}
}

// joinBus adds f to the router of its client, subscribing the router on
// first use.
func joinBus(f *fanout) {
	busRoutersMu.Lock()
	defer busRoutersMu.Unlock()
	r := busRouters[f.c]
	if r == nil {
		r = &busRouter{c: f.c, fs: map[*fanout]struct{}{}}
		busRouters[f.c] = r
		f.c.Subscribe(topicLive, r.onLive)
		f.c.Subscribe(topicChanges, r.onChange)
	}
	r.mu.Lock()
	r.fs[f] = struct{}{}
	r.mu.Unlock()
}

// leaveBus removes f from its client's router; the last one to leave drops
// the router (its subscriptions then deliver to no one until the client
// closes).
func leaveBus(f *fanout) {
	busRoutersMu.Lock()
	defer busRoutersMu.Unlock()
	r := busRouters[f.c]
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.fs, f)
	empty := len(r.fs) == 0
	r.mu.Unlock()
	if empty {
		delete(busRouters, f.c)
	}
}

// members returns the fan-outs of the router.
func (r *busRouter) members() []*fanout {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*fanout, 0, len(r.fs))
	for f := range r.fs {
		out = append(out, f)
	}
	return out
}

// onLive inserts another process's live events into every member's hub.
func (r *busRouter) onLive(origin string, payload []byte) {
	if origin == r.c.ID() {
		return
	}
	var evs []audit.LiveEvent
	for _, f := range r.members() {
		if f.hub == nil {
			continue
		}
		if evs == nil {
			var err error
			if evs, err = audit.DecodeLiveBatch(payload); err != nil {
				f.logger.Debug("ignoring undecodable live events from another process", zap.Error(err))
				return
			}
		}
		f.remoteLive(evs)
	}
}

// onChange has every member reload the domain another process changed.
func (r *busRouter) onChange(origin string, payload []byte) {
	if origin == r.c.ID() {
		return
	}
	for _, f := range r.members() {
		f.remoteChange(string(payload))
	}
}
