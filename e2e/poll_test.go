package e2e

import (
	"testing"
	"time"
)

// pollEvery is how long poll waits between two checks.
const pollEvery = 20 * time.Millisecond

// poll calls check until it reports true, and fails the test when within
// passes first; it returns how long that took. It is the one polling loop
// of the e2e suite: the gateway runs in another process or behind real
// sockets, so its state can only be observed by asking again.
func poll(t testing.TB, within time.Duration, what string, check func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(pollEvery)
	}
	return time.Since(start)
}
