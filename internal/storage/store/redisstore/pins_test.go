package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

func TestSessionPinSharedThroughRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	c1 := openTest(t, url, prefix)
	rows := vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}}
	provs := map[string]string{"a": "openai", "b": "openai"}
	var procs []*vmodels.Service
	for _, c := range []*Client{c1, openTest(t, url, prefix)} {
		s, err := vmodels.New(vmodels.Options{Managed: rows, Providers: provs})
		if err != nil {
			t.Fatal(err)
		}
		s.SharePins(NewPins(c))
		procs = append(procs, s)
	}
	// Process 1 pins the session to b (a is saturated there); process 2,
	// whose round robin starts on a, keeps it on b.
	c, _, _ := procs[0].Resolve("m", "/u", "sess-1", satur{"a"})
	if c.Provider != "b" {
		t.Fatalf("picked %+v", c)
	}
	for range 3 {
		if c, _, _ := procs[1].Resolve("m", "/u", "sess-1", nil); c.Provider != "b" {
			t.Fatalf("process 2 moved the session to %+v", c)
		}
	}
	// The pin expires after the idle time, restarted by every read.
	p := NewPins(c1)
	if err := p.SetPin("k", "v", time.Minute); err != nil {
		t.Fatal(err)
	}
	c1.R.PExpire(context.Background(), p.key("k"), time.Second)
	if v, ok, err := p.Pin("k", time.Minute); err != nil || !ok || v != "v" {
		t.Fatalf("pin: %q %v %v", v, ok, err)
	}
	if ttl := c1.R.PTTL(context.Background(), p.key("k")).Val(); ttl < 50*time.Second {
		t.Fatalf("a read did not restart the idle time: ttl %v", ttl)
	}
	if _, ok, err := p.Pin("nope", time.Minute); ok || err != nil {
		t.Fatalf("missing pin: ok=%v err=%v", ok, err)
	}
}

func TestSessionPinsWithRedisDown(t *testing.T) {
	c, err := Open(context.Background(), Options{URL: "redis://127.0.0.1:1/0", Prefix: "mgtest:down:"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	s, err := vmodels.New(vmodels.Options{
		Managed:   vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}},
		Providers: map[string]string{"a": "openai", "b": "openai"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.SharePins(NewPins(c))
	first, _, _ := s.Resolve("m", "/u", "sess", nil)
	start := time.Now()
	for range 20 {
		if got, _, _ := s.Resolve("m", "/u", "sess", nil); got != first {
			t.Fatalf("with Redis down the session moved from %+v to %+v", first, got)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("20 requests with Redis down took %v", d)
	}
}

// satur marks the models of some providers unavailable.
type satur []string

func (s satur) Available(provider, _ string) bool {
	for _, p := range s {
		if p == provider {
			return false
		}
	}
	return true
}

// BenchmarkResolveSessionRedis resolves a virtual model for a session
// whose pin holds: one GETEX.
func BenchmarkResolveSessionRedis(b *testing.B) {
	url, prefix := redistest.New(b)
	c, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Destruct()
	s, err := vmodels.New(vmodels.Options{
		Managed:   vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}},
		Providers: map[string]string{"a": "openai", "b": "openai"},
	})
	if err != nil {
		b.Fatal(err)
	}
	s.SharePins(NewPins(c))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _, _ = s.Resolve("m", "/team", "session-1", nil)
	}
}
