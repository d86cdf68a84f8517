package cache

import "context"

// Flight is a miss in progress: the one request that calls the upstream
// while identical requests that arrive meanwhile wait for its answer.
type Flight struct {
	c    *Cache
	key  Key
	done chan struct{}
	ans  *Answer // set before done is closed; nil when nothing is shared
}

// Lookup looks key up. A hit returns the answer. A miss returns a nil
// answer and, with coalesce set, a Flight the caller must end with Done
// once it has the upstream's answer; a nil Flight then means there is
// nothing to end.
//
// With coalesce set, a request identical to a miss in progress waits for
// that miss (until ctx ends, which returns ctx's error) and is answered
// with what it shares as a hit; when it shares nothing, the request is a
// miss without a Flight of its own. Hits and misses are counted for
// Stats.
func (c *Cache) Lookup(ctx context.Context, key Key, coalesce bool) (*Answer, *Flight, error) {
	if !coalesce {
		ans, err := c.get(key)
		c.count(ans != nil)
		return ans, nil, err
	}
	c.mu.Lock()
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		c.count(f.ans != nil)
		return f.ans, nil, nil
	}
	f := &Flight{c: c, key: key, done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()
	// Looked up only once the flight is registered: a flight ends after
	// its answer was stored, so an identical request either finds the
	// flight or finds the entry.
	ans, err := c.get(key)
	if ans != nil || err != nil {
		f.Done(ans)
		c.count(ans != nil)
		return ans, nil, err
	}
	c.count(false)
	return nil, f, nil
}

// Done ends the flight, handing ans (nil: nothing) to the requests that
// waited for it. Store the answer (Put) before calling Done. Done may be
// called more than once; only the first call counts. Call Done(nil) as
// soon as the answer is known not to be stored (it outgrew MaxEntryBytes,
// or failed), not at its end: the waiters then make their own calls
// instead of waiting for an answer nobody will share.
func (f *Flight) Done(ans *Answer) {
	if f == nil {
		return
	}
	c := f.c
	c.mu.Lock()
	if c.flights[f.key] != f {
		c.mu.Unlock()
		return
	}
	delete(c.flights, f.key)
	f.ans = ans
	c.mu.Unlock()
	close(f.done)
}

// count counts a hit or a miss.
func (c *Cache) count(hit bool) {
	if hit {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
}
