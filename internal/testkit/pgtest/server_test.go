package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestServerStopFreezeStart(t *testing.T) {
	s := StartServer(t)
	ping := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		c, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			return err
		}
		return c.Close(ctx)
	}
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	s.Freeze()
	if err := ping(); err == nil {
		t.Fatal("a frozen server answered")
	}
	s.Thaw()
	if err := ping(); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if err := ping(); err == nil {
		t.Fatal("a stopped server answered")
	}
	s.Start()
	if err := ping(); err != nil {
		t.Fatal(err)
	}
}
