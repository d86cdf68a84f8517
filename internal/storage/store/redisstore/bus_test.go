package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

func TestBusReachesEveryProcess(t *testing.T) {
	url, prefix := redistest.New(t)
	a, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Destruct()
	b, err := Open(context.Background(), Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destruct()
	got := make(chan [2]string, 4)
	b.Subscribe("keys", func(origin string, payload []byte) { got <- [2]string{origin, string(payload)} })
	b.Subscribe("other", func(string, []byte) { t.Error("a message reached another topic") })
	// The subscription is live once Redis confirms it; publish until it is.
	deadline := time.After(5 * time.Second)
	for {
		if err := a.Publish(context.Background(), "keys", []byte("revoked k1")); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m[0] != a.ID() || m[1] != "revoked k1" {
				t.Fatalf("got %q from %q, want %q from %q", m[1], m[0], "revoked k1", a.ID())
			}
			return
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no message within 5 s")
		}
	}
}
