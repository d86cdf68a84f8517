package providers

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Retry timing of failed model listings.
const (
	// firstListingRetry is the wait before a failed listing is tried
	// again; it doubles after each further failure in a row.
	firstListingRetry = time.Second
	// maxListingRetry caps the wait between retries when listings are
	// never refreshed (RefreshInterval 0); otherwise the refresh interval
	// caps it.
	maxListingRetry = 5 * time.Minute
)

// Start fetches every provider's listing in the background until ctx is
// done. It never blocks: a slow or failing provider delays nobody else.
//
// Each provider that is not limited to its allowlist is listed at once,
// then every RefreshInterval after a successful listing. A failed listing
// keeps the previous list and is retried after 1 s, the wait doubling
// after each further failure up to the refresh interval (up to 5 minutes
// when there is none), so a provider that was down at start is listed soon
// after it comes back. Cancelling ctx stops every listing, pending retries
// included.
func (r *Registry) Start(ctx context.Context) {
	var first sync.WaitGroup
	for _, e := range r.entries {
		if e.Allowlist {
			continue
		}
		first.Add(1)
		r.loops.Add(1)
		go func(e Entry) {
			defer r.loops.Done()
			r.keepListed(ctx, e, first.Done)
		}(e)
	}
	go func() {
		first.Wait()
		r.readyOnce.Do(func() { close(r.ready) })
	}()
}

// keepListed lists e's models now and then on its schedule until ctx is
// done; firstDone is called once the first attempt has finished.
func (r *Registry) keepListed(ctx context.Context, e Entry, firstDone func()) {
	retryCap := r.opts.RefreshInterval
	if retryCap <= 0 {
		retryCap = maxListingRetry
	}
	retry := firstListingRetry
	for {
		err := r.refreshOne(ctx, e)
		if firstDone != nil {
			firstDone()
			firstDone = nil
		}
		if ctx.Err() != nil {
			return // shutting down
		}
		var wait time.Duration
		if err == nil {
			if r.opts.RefreshInterval <= 0 {
				return
			}
			wait, retry = r.opts.RefreshInterval, firstListingRetry
		} else {
			wait = min(retry, retryCap)
			retry = min(2*retry, retryCap)
			r.opts.Logger.Warn("provider model listing failed; keeping the previous list",
				zap.String("provider", e.Provider.Name()), zap.Duration("retry_in", wait), zap.Error(err))
		}
		if !r.sleep(ctx, wait) {
			return
		}
	}
}

// refreshOne fetches e's listing and, on success, serves it.
func (r *Registry) refreshOne(ctx context.Context, e Entry) error {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	models, err := e.Provider.ListModels(ctx)
	if f := r.failing[e.Provider.Name()]; f != nil {
		f.Store(err != nil)
	}
	if err != nil {
		return err
	}
	listed := len(models) > 0
	if !listed {
		models = configured(e.Models)
	}
	models = distinct(models)
	r.mu.Lock()
	r.listings[e.Provider.Name()] = models
	r.upstream[e.Provider.Name()] = listed
	r.mu.Unlock()
	r.rebuildIndex()
	return nil
}

// distinct returns models without repeated ids, each id where it first
// appears: a listing that names a model twice lists it once.
func distinct(models []Model) []Model {
	seen := make(map[string]bool, len(models))
	out := models[:0:0]
	for _, m := range models {
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	return out
}
