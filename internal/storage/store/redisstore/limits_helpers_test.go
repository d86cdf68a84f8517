package redisstore

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// t0 is aligned to minute and hour windows.
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// testClock is an injectable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memRules is a RuleStore shared by several engines, as PostgreSQL is by
// several processes.
type memRules struct {
	mu sync.Mutex
	m  map[limits.Key]limits.Rule
}

func newMemRules() *memRules { return &memRules{m: map[limits.Key]limits.Rule{}} }

func (s *memRules) LoadRules() ([]limits.Rule, []error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]limits.Rule, 0, len(s.m))
	for _, r := range s.m {
		out = append(out, r)
	}
	return out, nil, nil
}

func (s *memRules) ReplaceRule(put *limits.Rule, del *limits.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if del != nil {
		delete(s.m, *del)
	}
	if put != nil {
		s.m[put.Key()] = *put
	}
	return nil
}

// engineOpts configure newSharedEngine.
type engineOpts struct {
	url, prefix string
	now         func() time.Time
	failClosed  bool
	rules       limits.RuleStore
	lease       RateLimitOptions
	follow      bool // announce changes and follow the others'
	// timeout is the engine's SharedTimeout; the default 100 ms is too
	// short for a loaded test machine running -race, except where the
	// fallback is the point.
	timeout time.Duration
}

// newSharedEngine is one "process": its own Redis client, its RateLimits
// and an engine on them with rules installed.
func newSharedEngine(t testing.TB, o engineOpts, rules ...limits.Rule) (*limits.Engine, *RateLimits) {
	t.Helper()
	if o.timeout == 0 {
		o.timeout = 2 * time.Second
	}
	c, err := Open(context.Background(), Options{URL: o.url, Prefix: o.prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destruct() })
	lo := o.lease
	if lo.Now == nil {
		lo.Now = o.now
	}
	rl := NewRateLimits(c, lo)
	eo := limits.Options{
		Now: o.now, TokensEnforced: true, QuotaTemplates: true,
		Shared: rl, SharedFailClosed: o.failClosed, Rules: o.rules,
		SharedTimeout: o.timeout,
	}
	if o.follow {
		eo.OnChange = rl.Announce
	}
	e, err := limits.New(eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if o.follow {
		rl.Follow(e.ApplyChange)
	}
	if err := e.SetConfigRules(rules); err != nil {
		t.Fatal(err)
	}
	return e, rl
}

// abandon stops renewing and forgets the held leases without giving them
// back, as a process killed with -9 would.
func (s *RateLimits) abandon() {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		s.mu.Lock()
		s.held = map[string][]string{}
		s.mu.Unlock()
		_ = s.r.Close()
	})
}

// tcpProxy forwards a local port to a Redis server and can be cut and
// restored, to play a Redis that goes away and comes back.
type tcpProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{target: target, addr: "127.0.0.1:0"}
	p.start(t)
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) start(t *testing.T) {
	t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
}

func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// admitN admits n requests on path at e, each ended with Done(0), and
// fails the test at the first refusal.
func admitN(t testing.TB, e *limits.Engine, path string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		a, rej := e.AdmitUserPath(path)
		if rej != nil {
			t.Fatalf("%s request %d refused: %s", path, i, rej.Reason)
		}
		a.Done(0)
	}
}
