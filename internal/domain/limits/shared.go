package limits

import (
	"context"
	"encoding/hex"
	"hash/fnv"
	"strconv"
	"time"
)

// Shared is a counter backend that several gateway processes use at once,
// so that their rate limits are exact together. The Engine calls it on the
// request path with a short deadline; when it fails the Engine falls back
// to its own in-memory counters (or refuses, when fail-closed).
//
// Window counters are named by SharedCounter.ID; concurrency slots are
// leases that expire unless the process holding them renews them, so a
// process that dies gives its slots back. Implementations must be safe for
// concurrent use.
type Shared interface {
	// Admit checks every counter of req and, only when none is
	// exhausted, consumes one request on each window and takes one
	// lease on each concurrency counter, in one atomic step. It fills in
	// the result fields of req (also when refused, with the state that
	// refused it). An error means the backend could not be asked;
	// nothing was consumed that the caller must give back.
	Admit(ctx context.Context, req *SharedAdmission) error
	// Peek fills in the state of req's counters (Window and the counts,
	// or InFlight: the live leases) without consuming anything; the
	// caps and Tokens are ignored.
	Peek(ctx context.Context, req *SharedAdmission) error
	// Release ends an admission: it charges Tokens to the token windows
	// of the window counters (or, when Cancel is set, gives the request
	// back to the window that counted it) and gives back the lease.
	Release(ctx context.Context, rel *SharedRelease) error
	// Reset empties the request and token windows of the given rules
	// (every child partition of a template included), or of every rule
	// when rules is nil. Leases are kept.
	Reset(ctx context.Context, rules []Key) error
	// Ping reports whether the backend answers.
	Ping(ctx context.Context) error
	// Close stops background work (lease renewal) and gives back the
	// leases still held.
	Close() error
}

// SharedCounter is one counter of a shared admission: its identity, its
// caps and, filled in by Shared.Admit, its state.
type SharedCounter struct {
	// ID names the counter: the rule's SharedID, followed by ":" and the
	// child segment for a partition of a per_child template.
	ID string
	// Period is the window length; 0 for a concurrency counter.
	Period time.Duration
	// MaxRequests is the request cap per window, or the in-flight cap of
	// a concurrency counter; 0 means none.
	MaxRequests int64
	// MaxTokens is the token cap per window; 0 means none.
	MaxTokens int64

	// Window is the index of the counter's current fixed window (Unix
	// milliseconds divided by the period in milliseconds).
	Window int64
	// Requests, PrevRequests, Tokens and PrevTokens are the counts of the
	// current and previous fixed window, this request included when
	// admitted.
	Requests, PrevRequests, Tokens, PrevTokens int64
	// InFlight is the number of live leases of a concurrency counter,
	// this request's included when admitted.
	InFlight int64

	// GiveBack requests that this process counted ahead in window
	// GiveBackWindow and will not admit: the backend subtracts them from
	// that window, if it is still the current or the previous one, before
	// checking the caps. 0: nothing to give back.
	GiveBack, GiveBackWindow int64
}

// SharedAdmission is the input and output of Shared.Admit.
type SharedAdmission struct {
	// Now is the admission time in Unix milliseconds.
	Now int64
	// Tokens says token caps are enforced.
	Tokens bool
	// Counters are the counters of every matching rule, each once.
	Counters []SharedCounter
	// Along, when not nil, is another domain's call that the backend
	// makes in the same round trip and atomic step as the admission, if
	// it knows the call's type; it then sets Along.Made. The call is made
	// first: when it refuses, the admission is not attempted
	// (Along.Vetoed); when the admission is refused, the call's effect
	// is undone.
	Along *Along
	// Batch, when above 1, asks the backend to count up to Batch requests
	// on every window counter instead of one, if after that each window's
	// use stays at or under half its request cap; the process admits the
	// rest itself (see Engine). A backend may ignore it and count one.
	Batch int64

	// Admitted reports whether the request was admitted.
	Admitted bool
	// Lease names the leases taken, when a concurrency counter matched;
	// pass it back in SharedRelease.
	Lease string
	// Granted is how many requests were counted on each window counter
	// when admitted: Batch, or 1 (0 from a backend that ignores Batch
	// means 1). The counts in Counters include them all.
	Granted int64
}

// Along is another domain's call to the Shared backend carried by an
// admission (Engine.AdmitUserPathAlong), so that both take one round
// trip to the backend.
type Along struct {
	// Call is the call, opaque to this package: the backend recognizes
	// its type, makes it and records its outcome in it.
	Call any
	// Made reports that the backend made Call.
	Made bool
	// Vetoed reports that Call refused, and the backend then neither
	// admitted nor refused the admission: it was not attempted.
	Vetoed bool
}

// SharedRelease is the input of Shared.Release.
type SharedRelease struct {
	// Now is the release time in Unix milliseconds.
	Now int64
	// AdmittedAt is the admission time in Unix milliseconds, for Cancel.
	AdmittedAt int64
	// Tokens is the request's token usage to charge (Cancel: 0).
	Tokens int64
	// Cancel gives the request back to the window that counted it.
	Cancel bool
	// Lease is SharedAdmission.Lease; empty when no lease was taken.
	Lease string
	// Counters are the admission's counters (ID and Period are used).
	Counters []SharedCounter
	// Along, when not nil, is another domain's call that the backend
	// makes in the same round trip, if it knows the call's type; it
	// then sets Along.Made. The two do not depend on each other.
	Along *Along
}

// SharedID is the stable name of k's counters in a shared backend: a hex
// hash of the normalized key, the same in every process.
func (k Key) SharedID() string {
	k = k.Normalize()
	h := fnv.New64a()
	var b []byte
	b = append(b, k.Scope...)
	b = append(b, 0)
	b = append(b, k.Subject...)
	b = append(b, 0)
	b = append(b, k.Period...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(k.PeriodSeconds), 10)
	_, _ = h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// sharedCounterID is the shared name of the counter of rule key k for
// child ("" for the rule's own counter).
func sharedCounterID(ruleID, child string) string {
	if child == "" {
		return ruleID
	}
	return ruleID + ":" + child
}
