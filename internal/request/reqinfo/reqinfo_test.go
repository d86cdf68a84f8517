package reqinfo

import (
	"testing"
	"time"
)

type countingReservation struct{ costs []float64 }

func (c *countingReservation) Settle(cost float64, _ time.Time) { c.costs = append(c.costs, cost) }

// TestSettleReservationOnce: a reservation is settled by the first call
// only; without one SettleReservation reports false.
func TestSettleReservationOnce(t *testing.T) {
	i := New()
	if i.SettleReservation(1, time.Now()) {
		t.Fatal("settled a reservation never set")
	}
	r := &countingReservation{}
	i.SetReservation(r)
	if !i.SettleReservation(0.5, time.Now()) || i.SettleReservation(0, time.Now()) {
		t.Fatal("want settled once")
	}
	if len(r.costs) != 1 || r.costs[0] != 0.5 {
		t.Fatalf("settled with %v", r.costs)
	}
}
