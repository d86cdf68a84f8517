package redistest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestServerStopFreezeStart(t *testing.T) {
	s := StartServer(t)
	opts, err := redis.ParseURL(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ping := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return c.Ping(ctx).Err()
	}
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.Freeze()
	if ping() == nil {
		t.Fatal("a frozen server answered")
	}
	s.Thaw()
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if ping() == nil {
		t.Fatal("a stopped server answered")
	}
	s.Start()
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Exists(context.Background(), "k").Result(); n != 0 {
		t.Error("a restarted server kept its data")
	}
}
