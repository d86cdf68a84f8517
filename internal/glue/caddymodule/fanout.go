package caddymodule

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

// Fan-out settings.
const (
	// fanoutReloadEvery is how often every shared domain is reloaded
	// anyway, in case a change message was lost.
	fanoutReloadEvery = 30 * time.Second
	// busCheckEvery is how often the bus's server is pinged. While it
	// does not answer, no change message can arrive, so every shared
	// domain is reloaded from shared storage at this pace instead: a key
	// deactivated at one process is refused at the others within about
	// this long even without the bus.
	busCheckEvery = time.Second
	// livePublishBatch is the most live events sent in one message.
	livePublishBatch = 256
	// busPublishTimeout bounds one publish, so that an unreachable Redis
	// costs drops, not a stuck sender.
	busPublishTimeout = time.Second
	// dropWarnEvery spaces the warnings about dropped live events.
	dropWarnEvery = time.Minute
)

// fanout makes several gateway processes one over a Redis bus: it sends
// this process's live log events to the others and inserts theirs into
// the local hub, and it announces admin changes and reloads the domains
// the others change (and all of them every fanoutReloadEvery). It is an
// admin.ChangeNotifier.
type fanout struct {
	c         *redisstore.Client
	hub       *audit.Hub // nil: no live log here
	out       *audit.LiveOutbox
	reloaders map[string]func() error
	every     time.Duration
	// check is how often the bus is pinged (busCheckEvery); busDown, used
	// by the reload loop only, says the last ping failed.
	check   time.Duration
	busDown bool
	logger  *zap.Logger

	mu       sync.Mutex
	dirty    map[string]bool // domains to reload
	pending  map[string]bool // domains to announce
	reloadC  chan struct{}
	announce chan struct{}

	cancel context.CancelFunc
	wg     sync.WaitGroup

	// Used by the outbox goroutine only: the drop count last logged,
	// when, and the latest publish error not yet logged.
	lastDropped uint64
	lastWarn    time.Time
	lastErr     error
}

// newFanout returns a fan-out over c for hub (nil for none) and the
// reloaders of the shared domains (admin.Changed* to a function that
// reloads that domain from shared storage; none when storage is not
// shared); start starts it.
func newFanout(c *redisstore.Client, hub *audit.Hub, reloaders map[string]func() error, logger *zap.Logger) *fanout {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &fanout{
		c: c, hub: hub, reloaders: reloaders, every: fanoutReloadEvery, check: busCheckEvery, logger: logger,
		dirty: map[string]bool{}, pending: map[string]bool{},
		reloadC: make(chan struct{}, 1), announce: make(chan struct{}, 1),
	}
}

// start begins forwarding live events, announcing and reloading, and
// joins the bus.
func (f *fanout) start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	if f.hub != nil {
		f.out = audit.NewLiveOutbox(audit.DefaultOutboxSize)
		f.hub.Forward(f.out)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.out.Run(ctx, livePublishBatch, func(evs []audit.LiveEvent) error { return f.sendLive(ctx, evs) })
		}()
	}
	if len(f.reloaders) > 0 {
		f.wg.Add(2)
		go func() {
			defer f.wg.Done()
			f.reloadLoop(ctx)
		}()
		go func() {
			defer f.wg.Done()
			f.announceLoop(ctx)
		}()
	}
	joinBus(f)
}

// stop leaves the bus and ends the goroutines; live events still queued
// are not sent.
func (f *fanout) stop() {
	if f == nil || f.cancel == nil {
		return
	}
	leaveBus(f)
	if f.hub != nil {
		f.hub.Forward(nil)
	}
	f.cancel()
	f.wg.Wait()
}

// Changed announces an admin change of domain to the other processes,
// without waiting for Redis.
func (f *fanout) Changed(domain string) {
	if f == nil {
		return
	}
	if _, shared := f.reloaders[domain]; !shared {
		return
	}
	f.mu.Lock()
	f.pending[domain] = true
	f.mu.Unlock()
	wake(f.announce)
}

// LiveDropped returns how many live events were not sent to the other
// processes because the queue was full or Redis failed.
func (f *fanout) LiveDropped() uint64 {
	if f == nil || f.out == nil {
		return 0
	}
	return f.out.Dropped()
}

// wake signals c without blocking.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// sendLive publishes one batch of this process's live events.
func (f *fanout) sendLive(ctx context.Context, evs []audit.LiveEvent) error {
	f.warnDrops()
	b, err := audit.EncodeLiveBatch(evs)
	if err == nil {
		pctx, cancel := context.WithTimeout(ctx, busPublishTimeout)
		err = f.c.Publish(pctx, topicLive, b)
		cancel()
	}
	if err != nil {
		f.lastErr = err
	}
	return err
}

// warnDrops logs, at most once per dropWarnEvery, how many live events
// were dropped so far, with the latest publish error. It runs on the
// outbox goroutine only.
func (f *fanout) warnDrops() {
	d := f.out.Dropped()
	now := time.Now()
	if d == f.lastDropped || now.Sub(f.lastWarn) < dropWarnEvery {
		return
	}
	f.lastDropped, f.lastWarn = d, now
	fields := []zap.Field{zap.Uint64("dropped_total", d)}
	if f.lastErr != nil {
		fields = append(fields, zap.Error(f.lastErr))
		f.lastErr = nil
	}
	f.logger.Warn("live log events were not shown to the other gateway processes", fields...)
}

// remoteLive inserts events from another process into the local hub.
func (f *fanout) remoteLive(evs []audit.LiveEvent) {
	for i := range evs {
		f.hub.PublishRemote(&evs[i])
	}
}

// remoteChange schedules a reload of domain, changed by another process.
func (f *fanout) remoteChange(domain string) {
	if _, ok := f.reloaders[domain]; !ok {
		return
	}
	f.mu.Lock()
	f.dirty[domain] = true
	f.mu.Unlock()
	wake(f.reloadC)
}

// take returns and clears the domains of set.
func (f *fanout) take(set map[string]bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
		delete(set, d)
	}
	return out
}

// reloadLoop reloads the domains other processes changed as soon as they
// say so, every domain every f.every, and every domain every f.check
// while the bus's server does not answer a ping (and once more when it
// answers again: messages sent meanwhile were lost).
func (f *fanout) reloadLoop(ctx context.Context) {
	t := time.NewTicker(f.every)
	defer t.Stop()
	check := time.NewTicker(f.check)
	defer check.Stop()
	all := func() {
		f.mu.Lock()
		for d := range f.reloaders {
			f.dirty[d] = true
		}
		f.mu.Unlock()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			all()
		case <-check.C:
			pctx, cancel := context.WithTimeout(ctx, busPublishTimeout)
			down := f.c.R.Ping(pctx).Err() != nil
			cancel()
			if !down && !f.busDown {
				continue
			}
			if down != f.busDown {
				f.busDown = down
				if down {
					f.logger.Warn("the change bus does not answer; reloading shared settings every " + f.check.String() + " until it does")
				} else {
					f.logger.Info("the change bus answers again")
				}
			}
			all()
		case <-f.reloadC:
		}
		for _, d := range f.take(f.dirty) {
			if err := f.reloaders[d](); err != nil {
				f.logger.Warn("reloading shared settings failed; the ones in force stay until the next reload",
					zap.String("domain", d), zap.Error(err))
			}
		}
	}
}

// announceLoop publishes the domains changed here.
func (f *fanout) announceLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.announce:
		}
		for _, d := range f.take(f.pending) {
			pctx, cancel := context.WithTimeout(ctx, busPublishTimeout)
			err := f.c.Publish(pctx, topicChanges, []byte(d))
			cancel()
			if err != nil {
				f.logger.Warn("could not tell the other gateway processes about a change; they reload it within "+f.every.String(),
					zap.String("domain", d), zap.Error(err))
			}
		}
	}
}

// Interface guard.
var _ admin.ChangeNotifier = (*fanout)(nil)
