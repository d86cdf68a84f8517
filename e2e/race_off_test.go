//go:build !race

package e2e

// raceDetector reports whether the tests run with the race detector, which
// makes the gateway several times slower: timing budgets are checked in
// the run without it.
const raceDetector = false
