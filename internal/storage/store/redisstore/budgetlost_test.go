package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// TestBudgetReservationsLostWithRedis: reservations that vanish with
// Redis's data neither leak nor go negative: the requests holding them
// settle their cost as a charge, and the cell's reservations sum to 0.
func TestBudgetReservationsLostWithRedis(t *testing.T) {
	url, prefix := redistest.New(t)
	now := time.Now().UTC()
	c := openTest(t, url, prefix)
	p := reserveService(t, c, now, 0)
	r1, ok, _, _ := p.Reserve("/team/app", catalog.NanosOf(0.6), now)
	if !ok {
		t.Fatal("refused $0.60 of $1")
	}
	ctx := context.Background()
	keys, err := c.R.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if err := c.R.Del(ctx, keys...).Err(); err != nil { // the server restarts empty
		t.Fatal(err)
	}
	p.Probe() // finds it empty: rebuilds the windows (no records: nothing spent)
	r1.Settle(0.2, now)
	r2, ok, _, _ := p.Reserve("/team", catalog.NanosOf(0.8), now)
	if !ok {
		t.Fatal("refused $0.80 with $0.20 spent: a lost reservation still counts")
	}
	r2.Settle(0, now)
	st := NewBudgets(c)
	h, _ := st.resvKeys(budgets.SpendCell{Window: budgets.SpendWindow{Budget: budgets.Key{UserPath: "/team", Period: budgets.Daily}}})
	if held, err := c.R.HGet(ctx, h, "\x00").Int64(); err != nil || held != 0 {
		t.Fatalf("reservations held %d (%v), want 0", held, err)
	}
	if es := p.List(); es[1].UserPath != "/team" || catalog.NanosOf(float64(es[1].Spent)) != catalog.NanosOf(0.2) {
		t.Fatalf("lists %+v, want $0.20 spent", es[1])
	}
}
