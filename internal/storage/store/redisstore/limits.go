package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// Rate-limit keys (after the client's prefix):
//
//	rl:w:<counter id>  hash: a window counter (see limits_lua.go)
//	rl:c:<counter id>  sorted set: the leases of a concurrency counter
//
// A counter id is the rule's limits.Key.SharedID, followed by ":<child>"
// for a partition of a per_child template.

// Defaults of RateLimitOptions.
const (
	// DefaultLeaseTime is how long a concurrency slot outlives the last
	// renewal of the process holding it.
	DefaultLeaseTime = 10 * time.Second
	// DefaultRenewEvery is how often held leases are renewed.
	DefaultRenewEvery = 3 * time.Second
)

// renewTimeout bounds one renewal round.
const renewTimeout = 2 * time.Second

// RateLimitOptions configure NewRateLimits.
type RateLimitOptions struct {
	// LeaseTime is how long a concurrency slot stays taken after the
	// last renewal; DefaultLeaseTime when 0.
	LeaseTime time.Duration
	// RenewEvery is the renewal period of held leases; DefaultRenewEvery
	// when 0. It must be well below LeaseTime.
	RenewEvery time.Duration
	// Now is the clock of lease renewal; time.Now when nil. Give it the
	// clock of the limits.Engine.
	Now func() time.Time
	// Logger receives renewal failures; nil logs nothing.
	Logger *zap.Logger
}

// RateLimits keeps rate-limit windows and concurrency leases in Redis for
// several gateway processes: it implements limits.Shared. Admission and
// release are one script call each (EVALSHA, EVAL when the server lacks
// the script) on a connection pool of its own that never retries (a
// retried admission could count twice) and honours the caller's deadline.
type RateLimits struct {
	c        *Client
	r        *redis.Client
	log      *zap.Logger
	now      func() time.Time
	leaseTTL time.Duration
	renew    time.Duration
	seq      atomic.Uint64

	mu   sync.Mutex
	held map[string][]string // lease id → its sorted-set keys

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	warnedAt  atomic.Int64
}

var _ limits.Shared = (*RateLimits)(nil)

// NewRateLimits returns the rate-limit counters on c and starts the lease
// renewal loop; Close stops it. c must outlive the RateLimits.
func NewRateLimits(c *Client, opts RateLimitOptions) *RateLimits {
	if opts.LeaseTime <= 0 {
		opts.LeaseTime = DefaultLeaseTime
	}
	if opts.RenewEvery <= 0 {
		opts.RenewEvery = DefaultRenewEvery
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	// A pool of its own, with the server settings of c: plain RESP2
	// (no push notifications, no client-side cache, whose handlers belong
	// to c), no retries, the caller's deadline honoured.
	ro := *c.R.Options()
	ro.Protocol = 2
	ro.PushNotificationProcessor = nil
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	ro.ClientSideCache, ro.ClientSideCacheConfig = nil, nil
	ro.MaxRetries = -1
	ro.ContextTimeoutEnabled = true
	ro.PoolTimeout = time.Second
	s := &RateLimits{
		c:        c,
		r:        redis.NewClient(&ro),
		log:      opts.Logger,
		now:      opts.Now,
		leaseTTL: opts.LeaseTime,
		renew:    opts.RenewEvery,
		held:     map[string][]string{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go s.loop()
	go s.warm()
	return s
}

// warm loads the scripts into the server, so that the first admissions
// need no second round trip (EVAL after NOSCRIPT), and opens a connection.
// A server that does not answer is not an error here: the scripts are
// sent with the first calls once it does.
func (s *RateLimits) warm() {
	ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
	defer cancel()
	for _, sc := range []*redis.Script{admitScript, releaseScript, peekScript, admitReserving, spendSettle} {
		if err := sc.Load(ctx, s.r).Err(); err != nil {
			return
		}
	}
}

// key is the Redis key of counter id: a window hash, or the lease set of
// a concurrency counter (period 0).
func (s *RateLimits) key(id string, period time.Duration) string {
	if period == 0 {
		return s.c.Key("rl", "c", id)
	}
	return s.c.Key("rl", "w", id)
}

// Admit implements limits.Shared with one script call.
func (s *RateLimits) Admit(ctx context.Context, req *limits.SharedAdmission) error {
	n := len(req.Counters)
	if n == 0 {
		req.Admitted = true
		return nil
	}
	keys := make([]string, n)
	args := make([]any, 5, 5+5*n)
	var leaseKeys []string
	for i := range req.Counters {
		sc := &req.Counters[i]
		keys[i] = s.key(sc.ID, sc.Period)
		args = append(args, sc.Period.Milliseconds(), sc.MaxRequests, sc.MaxTokens, sc.GiveBackWindow, max(sc.GiveBack, 0))
		if sc.Period == 0 {
			leaseKeys = append(leaseKeys, keys[i])
		}
	}
	lease := ""
	if leaseKeys != nil {
		lease = s.c.ID() + ":" + strconv.FormatUint(s.seq.Add(1), 36)
	}
	tok := "0"
	if req.Tokens {
		tok = "1"
	}
	args[0], args[1], args[2], args[3], args[4] = req.Now, tok, lease, s.leaseTTL.Milliseconds(), max(req.Batch, 1)
	if lease != "" {
		// Held before the call: an admission whose answer is lost (a
		// timeout after Redis ran the script) is renewed and, at Release,
		// given back, instead of holding its slot for the lease time.
		s.hold(lease, leaseKeys)
	}
	var res []int64
	var err error
	if bc, b := s.budgetAlong(req); bc != nil {
		res, err = s.admitReserving(ctx, req, bc, b, keys, args)
	} else {
		res, err = admitScript.Run(ctx, s.r, keys, args...).Int64Slice()
	}
	if err == nil && req.Along != nil && req.Along.Vetoed {
		if lease != "" {
			s.unhold(lease)
		}
		return nil
	}
	if err != nil {
		if lease != "" {
			s.drop(ctx, lease)
		}
		return fmt.Errorf("redis rate-limit admission: %w", err)
	}
	if err := parseAdmit(res, req, true); err != nil {
		if lease != "" {
			s.drop(ctx, lease)
		}
		return err
	}
	if req.Admitted {
		req.Lease = lease
	} else if lease != "" {
		s.unhold(lease)
	}
	return nil
}

// Peek implements limits.Shared with one read-only script call.
func (s *RateLimits) Peek(ctx context.Context, req *limits.SharedAdmission) error {
	if len(req.Counters) == 0 {
		return nil
	}
	keys := make([]string, len(req.Counters))
	args := make([]any, 1, 1+len(req.Counters))
	args[0] = req.Now
	for i := range req.Counters {
		sc := &req.Counters[i]
		keys[i] = s.key(sc.ID, sc.Period)
		args = append(args, sc.Period.Milliseconds())
	}
	res, err := peekScript.Run(ctx, s.r, keys, args...).Int64Slice()
	if err != nil {
		return fmt.Errorf("redis rate-limit usage: %w", err)
	}
	// The reply is the admission's without its leading verdict.
	return parseAdmit(append([]int64{0}, res...), req, false)
}

// parseAdmit reads the admission script's reply into req; granted says
// the reply ends with the number of requests counted (the admission's,
// not the peek's).
func parseAdmit(res []int64, req *limits.SharedAdmission, granted bool) error {
	want := 1
	if granted {
		want++
	}
	for i := range req.Counters {
		if req.Counters[i].Period == 0 {
			want++
		} else {
			want += 5
		}
	}
	if len(res) != want {
		return fmt.Errorf("redis rate-limit admission: %d values in the reply, want %d", len(res), want)
	}
	req.Admitted = res[0] == 1
	j := 1
	for i := range req.Counters {
		sc := &req.Counters[i]
		if sc.Period == 0 {
			sc.InFlight = res[j]
			j++
			continue
		}
		sc.Window, sc.Requests, sc.PrevRequests, sc.Tokens, sc.PrevTokens = res[j], res[j+1], res[j+2], res[j+3], res[j+4]
		j += 5
	}
	if granted {
		req.Granted = res[j]
	}
	return nil
}

// Release implements limits.Shared with one script call. The lease stops
// being renewed first, so it expires by itself if the call fails.
func (s *RateLimits) Release(ctx context.Context, rel *limits.SharedRelease) error {
	if rel.Lease != "" {
		s.unhold(rel.Lease)
	}
	if len(rel.Counters) == 0 {
		return nil
	}
	keys := make([]string, len(rel.Counters))
	args := make([]any, 5, 5+len(rel.Counters))
	cancel := "0"
	if rel.Cancel {
		cancel = "1"
	}
	args[0], args[1], args[2], args[3], args[4] = rel.Now, max(rel.Tokens, 0), cancel, rel.AdmittedAt, rel.Lease
	for i := range rel.Counters {
		sc := &rel.Counters[i]
		keys[i] = s.key(sc.ID, sc.Period)
		args = append(args, sc.Period.Milliseconds())
	}
	var err error
	if sc, b := s.settleAlong(rel); sc != nil {
		err = s.releaseSettling(ctx, rel, sc, b, keys, args)
	} else {
		err = releaseScript.Run(ctx, s.r, keys, args...).Err()
	}
	if err != nil {
		return fmt.Errorf("redis rate-limit release: %w", err)
	}
	return nil
}

// Reset implements limits.Shared: it deletes the window hashes of rules
// (every child partition included) or, rules nil, of every rule.
func (s *RateLimits) Reset(ctx context.Context, rules []limits.Key) error {
	var patterns []string
	if rules == nil {
		patterns = []string{globEscape(s.c.Key("rl", "w", "")) + "*"}
	} else {
		for _, k := range rules {
			id := k.SharedID()
			// The rule's own counter, and its partitions "<id>:<child>".
			patterns = append(patterns, globEscape(s.c.Key("rl", "w", id)), globEscape(s.c.Key("rl", "w", id+":"))+"*")
		}
	}
	for _, p := range patterns {
		if !strings.HasSuffix(p, "*") {
			if err := s.r.Unlink(ctx, p).Err(); err != nil {
				return fmt.Errorf("redis rate-limit reset: %w", err)
			}
			continue
		}
		iter := s.r.Scan(ctx, 0, p, 1000).Iterator()
		var batch []string
		for iter.Next(ctx) {
			batch = append(batch, iter.Val())
			if len(batch) == 500 {
				if err := s.r.Unlink(ctx, batch...).Err(); err != nil {
					return fmt.Errorf("redis rate-limit reset: %w", err)
				}
				batch = batch[:0]
			}
		}
		if err := iter.Err(); err != nil {
			return fmt.Errorf("redis rate-limit reset: %w", err)
		}
		if len(batch) > 0 {
			if err := s.r.Unlink(ctx, batch...).Err(); err != nil {
				return fmt.Errorf("redis rate-limit reset: %w", err)
			}
		}
	}
	return nil
}

// Ping implements limits.Shared.
func (s *RateLimits) Ping(ctx context.Context) error { return s.r.Ping(ctx).Err() }

// Close implements limits.Shared: it stops the renewal loop, gives back
// the leases still held, and closes the connection pool. Idempotent.
func (s *RateLimits) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
		defer cancel()
		s.mu.Lock()
		held := s.held
		s.held = map[string][]string{}
		s.mu.Unlock()
		if len(held) > 0 {
			pipe := s.r.Pipeline()
			for lease, keys := range held {
				for _, k := range keys {
					pipe.ZRem(ctx, k, lease)
				}
			}
			if _, perr := pipe.Exec(ctx); perr != nil {
				s.log.Warn("redis rate limits: could not give back held concurrency slots; they expire by themselves", zap.Error(perr))
			}
		}
		err = s.r.Close()
	})
	return err
}

// Held is the number of leases this process holds.
func (s *RateLimits) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held)
}

// hold records a lease for renewal.
func (s *RateLimits) hold(lease string, keys []string) {
	s.mu.Lock()
	s.held[lease] = keys
	s.mu.Unlock()
}

// unhold stops renewing a lease.
func (s *RateLimits) unhold(lease string) {
	s.mu.Lock()
	delete(s.held, lease)
	s.mu.Unlock()
}

// drop stops renewing a lease whose admission failed and tries to remove
// it, in case the script ran.
func (s *RateLimits) drop(ctx context.Context, lease string) {
	s.mu.Lock()
	keys := s.held[lease]
	delete(s.held, lease)
	s.mu.Unlock()
	if ctx.Err() != nil {
		// The caller's deadline is spent; the lease expires by itself.
		return
	}
	for _, k := range keys {
		_ = s.r.ZRem(ctx, k, lease).Err()
	}
}

// loop renews held leases every renew period until Close.
func (s *RateLimits) loop() {
	defer close(s.done)
	t := time.NewTicker(s.renew)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.renewAll(); err != nil {
				s.warn("redis rate limits: could not renew concurrency slots; they expire unless renewed in time", err)
			}
		}
	}
}

// renewAll pushes the expiry of every held lease to now + lease time. A
// lease Redis no longer has (expired, or given back) is not re-created.
func (s *RateLimits) renewAll() error {
	s.mu.Lock()
	if len(s.held) == 0 {
		s.mu.Unlock()
		return nil
	}
	type entry struct{ lease, key string }
	entries := make([]entry, 0, len(s.held))
	for lease, keys := range s.held {
		for _, k := range keys {
			entries = append(entries, entry{lease, k})
		}
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), renewTimeout)
	defer cancel()
	exp := float64(s.now().Add(s.leaseTTL).UnixMilli())
	keep := (3 * s.leaseTTL).Milliseconds()
	pipe := s.r.Pipeline()
	seen := map[string]bool{}
	for _, e := range entries {
		pipe.ZAddXX(ctx, e.key, redis.Z{Score: exp, Member: e.lease})
		if !seen[e.key] {
			seen[e.key] = true
			pipe.PExpire(ctx, e.key, time.Duration(keep)*time.Millisecond)
		}
	}
	_, err := pipe.Exec(ctx)
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	return nil
}

// warn logs msg at most every ten seconds.
func (s *RateLimits) warn(msg string, err error) {
	now := time.Now().UnixNano()
	last := s.warnedAt.Load()
	if now-last < int64(10*time.Second) || !s.warnedAt.CompareAndSwap(last, now) {
		return
	}
	s.log.Warn(msg, zap.Error(err))
}
