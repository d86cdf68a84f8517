package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// DefaultPrefix starts every key when Options.Prefix is empty.
const DefaultPrefix = "modelgate:"

// Options configure [Open].
type Options struct {
	// URL is the server's redis:// or rediss:// URL. Required.
	URL string
	// Prefix starts every key and channel name; DefaultPrefix when empty.
	Prefix string
	// Logger receives connection warnings; nil logs nothing.
	Logger *zap.Logger
}

// Client is a connection pool to one Redis server, shared by the domain
// stores of this package, with a process id that tags what it publishes.
type Client struct {
	// R is the underlying go-redis client.
	R      *redis.Client
	prefix string
	id     string
	logger *zap.Logger
	bus    *bus
}

// Open parses the URL and checks that the server answers within five
// seconds. A server that does not answer is not an error: the gateway
// keeps serving and the stores fall back as their docs say; Open logs a
// warning and go-redis reconnects when the server returns. A URL that does
// not parse is an error.
func Open(ctx context.Context, opts Options) (*Client, error) {
	if opts.URL == "" {
		return nil, errors.New("redis: a URL is required")
	}
	ro, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("redis: the URL is not valid: %w", redactURLError(err))
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	} else {
		routeLibraryLog(opts.Logger)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	boundCalls(ro)
	var b [8]byte
	_, _ = rand.Read(b[:])
	c := &Client{
		R:      redis.NewClient(ro),
		prefix: opts.Prefix,
		id:     hex.EncodeToString(b[:]),
		logger: opts.Logger,
	}
	c.bus = newBus(c)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.R.Ping(pingCtx).Err(); err != nil {
		c.logger.Warn("redis does not answer; serving without it until it returns", zap.String("addr", ro.Addr), zap.Error(err))
	}
	return c, nil
}

// Call bounds: a hung server (one that accepts connections and never
// answers) must cost a caller its own deadline, not go-redis's defaults
// (3 s reads, retried three times, behind a 4 s wait for a connection).
const (
	// callTimeout is the longest one command may wait for its answer
	// when its context has no earlier deadline.
	callTimeout = time.Second
	// connWait is the longest a call waits for a free connection.
	connWait = time.Second
)

// boundCalls makes every call of a client with ro honour its context's
// deadline and never wait longer than callTimeout for an answer or
// connWait for a connection; a failed call is not retried (the stores
// have their own fallbacks, and a retry against a hung server doubles
// the stall). Settings given in the URL's query are kept where tighter.
func boundCalls(ro *redis.Options) {
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1
	if ro.ReadTimeout <= 0 || ro.ReadTimeout > callTimeout {
		ro.ReadTimeout = callTimeout
	}
	if ro.WriteTimeout <= 0 || ro.WriteTimeout > callTimeout {
		ro.WriteTimeout = callTimeout
	}
	if ro.PoolTimeout <= 0 || ro.PoolTimeout > connWait {
		ro.PoolTimeout = connWait
	}
	if ro.DialTimeout <= 0 || ro.DialTimeout > callTimeout {
		ro.DialTimeout = callTimeout
	}
}

// redactURLError keeps the errors of redis.ParseURL that name only a part
// of the URL (its scheme, database number or options) and replaces one
// that quotes the whole URL, a syntax error, which would put its password
// in the log.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return errors.New("it does not parse as a URL; check its syntax (the error is not shown because it may contain the password)")
	}
	return err
}

// Key returns the prefixed name of a key made of parts joined by ':'.
func (c *Client) Key(parts ...string) string {
	n := len(c.prefix)
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, c.prefix...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, p...)
	}
	return string(b)
}

// ID is this process's random id; messages it publishes carry it.
func (c *Client) ID() string { return c.id }

// Destruct stops the subscriptions and closes the pool. It makes Client a
// caddy.Destructor, so an app can share one client across config reloads.
func (c *Client) Destruct() error {
	c.bus.close()
	return c.R.Close()
}
