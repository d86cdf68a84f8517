package redisstore

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Handler receives a message published on a topic: the id of the process
// that published it (compare with Client.ID to skip one's own) and its
// payload. Handlers run one at a time, in the order messages arrive, on
// the subscription's goroutine: they must not block for long.
type Handler func(origin string, payload []byte)

// bus is the publish/subscribe fan-out between processes. One Redis
// subscription carries every topic; go-redis re-subscribes after a lost
// connection; messages published while it was lost are lost, so a
// subscriber that caches state should also reload it now and then.
type bus struct {
	c        *Client
	mu       sync.Mutex
	handlers map[string][]Handler
	ps       *redis.PubSub
	cancel   context.CancelFunc
	done     chan struct{}
}

func newBus(c *Client) *bus { return &bus{c: c, handlers: map[string][]Handler{}} }

// Publish sends payload to every process subscribed to topic, this one
// included.
func (c *Client) Publish(ctx context.Context, topic string, payload []byte) error {
	msg := make([]byte, 0, len(c.id)+1+len(payload))
	msg = append(msg, c.id...)
	msg = append(msg, '\n')
	msg = append(msg, payload...)
	return c.R.Publish(ctx, c.Key("bus", topic), msg).Err()
}

// Subscribe calls h for every message published on topic from now on, by
// any process.
func (c *Client) Subscribe(topic string, h Handler) {
	b := c.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers[topic] = append(b.handlers[topic], h)
	ch := c.Key("bus", topic)
	if b.ps == nil {
		ctx, cancel := context.WithCancel(context.Background())
		b.cancel, b.done = cancel, make(chan struct{})
		b.ps = c.R.Subscribe(ctx, ch)
		go b.run(ctx, b.ps)
		return
	}
	if err := b.ps.Subscribe(context.Background(), ch); err != nil {
		c.logger.Warn("redis subscribe failed; go-redis retries on reconnect", zap.String("topic", topic), zap.Error(err))
	}
}

func (b *bus) run(ctx context.Context, ps *redis.PubSub) {
	defer close(b.done)
	prefix := b.c.Key("bus", "")
	ch := ps.Channel(redis.WithChannelHealthCheckInterval(5 * time.Second))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			topic := strings.TrimPrefix(m.Channel, prefix)
			origin, payload, found := strings.Cut(m.Payload, "\n")
			if !found {
				continue
			}
			b.mu.Lock()
			hs := b.handlers[topic]
			b.mu.Unlock()
			for _, h := range hs {
				h(origin, []byte(payload))
			}
		}
	}
}

func (b *bus) close() {
	b.mu.Lock()
	ps, cancel, done := b.ps, b.cancel, b.done
	b.ps = nil
	b.mu.Unlock()
	if ps == nil {
		return
	}
	cancel()
	_ = ps.Close()
	<-done
}
