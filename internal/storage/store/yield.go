package store

import "runtime"

// YieldEvery is how many records the writer handles between two yields
// of its processor (see Yield).
const YieldEvery = 64

// Yield lets other goroutines run in the middle of a long batch: called
// with the index of each record a loop of the writer handles, it yields
// the processor every YieldEvery records. The writer shares the
// processors with the requests it records; without yielding, a batch of
// thousands of records would keep a request that became ready meanwhile
// waiting for up to the scheduler's time slice (10 ms) on a gateway with
// one processor.
func Yield(i int) {
	if i%YieldEvery == YieldEvery-1 {
		runtime.Gosched()
	}
}
