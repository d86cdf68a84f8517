package reqinfo

import "time"

// Reservation is a hold on the budgets covering the caller for the
// request's worst-case cost (budgets.Reservation), made when the request
// was admitted. Settle replaces it with the real cost, or releases it
// with cost 0; only the first call acts.
type Reservation interface {
	Settle(cost float64, at time.Time)
}

// SetReservation records r as the request's budget reservation, for the
// stage that admitted the request to settle once it has ended
// (SettleReservation).
func (i *Info) SetReservation(r Reservation) {
	i.mu.Lock()
	i.reservation = r
	i.mu.Unlock()
}

// SettleReservation settles the request's budget reservation with cost
// (USD; 0 releases it: the request failed, was cancelled or its client
// went away before it cost anything) at at, and reports whether there was
// one. The reservation is forgotten first, so however many paths end the
// request, it is settled once.
func (i *Info) SettleReservation(cost float64, at time.Time) bool {
	i.mu.Lock()
	r := i.reservation
	i.reservation = nil
	i.mu.Unlock()
	if r == nil {
		return false
	}
	r.Settle(cost, at)
	return true
}

// TakeReservation returns the request's budget reservation and forgets
// it (nil when there is none), for a stage that settles it itself.
func (i *Info) TakeReservation() Reservation {
	i.mu.Lock()
	defer i.mu.Unlock()
	r := i.reservation
	i.reservation = nil
	return r
}
