package limits

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// flakyShared is a Shared backend that fails while down is set and
// otherwise admits everything, counting calls.
type flakyShared struct {
	down, slow      atomic.Bool
	admits, pings   atomic.Int64
	releases, reset atomic.Int64
}

var errDown = errors.New("connection refused")

func (s *flakyShared) Admit(ctx context.Context, req *SharedAdmission) error {
	s.admits.Add(1)
	if s.down.Load() {
		return errDown
	}
	if s.slow.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	req.Admitted = true
	for i := range req.Counters {
		c := &req.Counters[i]
		if c.Period == 0 {
			c.InFlight = 1
			req.Lease = "l1"
		} else {
			c.Window, c.Requests = req.Now/c.Period.Milliseconds(), 1
		}
	}
	return nil
}

func (s *flakyShared) Peek(ctx context.Context, req *SharedAdmission) error {
	if s.down.Load() {
		return errDown
	}
	for i := range req.Counters {
		c := &req.Counters[i]
		if c.Period == 0 {
			c.InFlight = 7
		} else {
			c.Window, c.Requests, c.Tokens = req.Now/c.Period.Milliseconds(), 42, 99
		}
	}
	return nil
}

func (s *flakyShared) Release(ctx context.Context, rel *SharedRelease) error {
	s.releases.Add(1)
	if s.down.Load() {
		return errDown
	}
	return nil
}

func (s *flakyShared) Reset(ctx context.Context, rules []Key) error {
	s.reset.Add(1)
	return nil
}

func (s *flakyShared) Ping(ctx context.Context) error {
	s.pings.Add(1)
	if s.down.Load() {
		return errDown
	}
	return nil
}

func (s *flakyShared) Close() error { return nil }

func sharedEngine(t *testing.T, sh Shared, failClosed bool, rules ...Rule) *Engine {
	t.Helper()
	e, err := New(Options{Shared: sh, SharedFailClosed: failClosed, TokensEnforced: true, QuotaTemplates: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.SetConfigRules(rules); err != nil {
		t.Fatal(err)
	}
	return e
}

// A backend that fails is asked once, then left alone until the probe
// finds it back; meanwhile admissions use the local counters and count as
// fallbacks; fail-closed they are refused as unavailable.
func TestSharedFallbackAndRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sh := &flakyShared{}
		rule := Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 3}
		e := sharedEngine(t, sh, false, rule)
		a, rej := e.AdmitUserPath("/u")
		if rej != nil || !a.shared {
			t.Fatalf("rej %v, shared %v", rej, a.shared)
		}
		a.Done(0) // no lease, no token cap: no release call
		if sh.releases.Load() != 0 {
			t.Fatal("a release with nothing to release")
		}
		for _, st := range e.Rules() {
			if st.Usage.RequestsUsed != 42 || st.Usage.TokensUsed != 99 {
				t.Fatalf("usage not read from the backend: %+v", st.Usage)
			}
		}
		sh.down.Store(true)
		admitted := 0
		for i := 0; i < 5; i++ {
			if a, rej := e.AdmitUserPath("/u"); rej == nil {
				admitted++
				if a.shared {
					t.Fatal("admitted through a backend that is down")
				}
				a.Done(0)
			}
		}
		// The mirrored shared count (1) plus local admissions reach the cap 3.
		if admitted != 2 || sh.admits.Load() != 2 || e.SharedFallbacks() != 5 || e.SharedHealthy() {
			t.Fatalf("admitted %d, backend asked %d times, %d fallbacks, healthy %v", admitted, sh.admits.Load(), e.SharedFallbacks(), e.SharedHealthy())
		}
		e.SetSharedFailClosed(true)
		if _, rej := e.AdmitUserPath("/u"); rej == nil || !rej.Unavailable || rej.RetryAfterSeconds() != 1 {
			t.Fatalf("fail-closed: %+v", rej)
		}
		if _, ok := e.TargetAvailable("p", "m"); !ok {
			t.Fatal("no target rule, yet unavailable")
		}
		sh.down.Store(false)
		// The probe started with the first failure, at the bubble's start.
		time.Sleep(probeEvery - time.Nanosecond) // bubble time: just short of the probe's first ping
		synctest.Wait()
		if e.SharedHealthy() {
			t.Fatal("healthy again before the probe pinged")
		}
		time.Sleep(time.Nanosecond) // the probe's ping
		synctest.Wait()
		if !e.SharedHealthy() {
			t.Fatal("probe did not bring the backend back")
		}
		if a, rej := e.AdmitUserPath("/u"); rej != nil || !a.shared {
			t.Fatalf("after recovery: %v shared=%v", rej, a.shared)
		}
	})
}

// Without a matching rule nothing is asked and nothing counts as fallback.
func TestSharedNotAskedWithoutRules(t *testing.T) {
	sh := &flakyShared{}
	sh.down.Store(true)
	e := sharedEngine(t, sh, true, Rule{Scope: ScopeProvider, Subject: "p", Period: PeriodMinute, MaxRequests: 1})
	if _, rej := e.AdmitUserPath("/u"); rej != nil {
		t.Fatal(rej)
	}
	if sh.admits.Load() != 0 || e.SharedFallbacks() != 0 {
		t.Fatal("backend asked without a matching rule")
	}
}

// Leases go back through Release; admin resets reach the backend and are
// announced; a change from elsewhere reloads rules and is not announced.
func TestSharedReleaseResetAndChanges(t *testing.T) {
	sh := &flakyShared{}
	store := newMemStore()
	var changes []Change
	e, err := New(Options{Shared: sh, Rules: store, OnChange: func(c Change) { changes = append(changes, c) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conc := Rule{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 2}
	if err := e.Upsert(conc, nil); err != nil {
		t.Fatal(err)
	}
	a, rej := e.AdmitUserPath("/x")
	if rej != nil || a.lease != "l1" {
		t.Fatalf("%v lease %q", rej, a.lease)
	}
	a.Done(0)
	if sh.releases.Load() != 1 {
		t.Fatalf("%d releases", sh.releases.Load())
	}
	if err := e.ResetOne(conc.Key()); err != nil {
		t.Fatal(err)
	}
	e.ResetAll()
	if err := e.Delete(conc.Key()); err != nil {
		t.Fatal(err)
	}
	if sh.reset.Load() != 3 {
		t.Fatalf("%d backend resets, want 3", sh.reset.Load())
	}
	if len(changes) != 4 || !changes[0].Rules || len(changes[1].Reset) != 1 || !changes[2].ResetAll || !changes[3].Rules {
		t.Fatalf("changes %+v", changes)
	}
	// Another process stored a rule: ApplyChange picks it up silently.
	other := Rule{Scope: ScopeUserPath, Subject: "/y", Period: PeriodMinute, MaxRequests: 1, Source: SourceManual}
	if err := store.ReplaceRule(&other, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.ApplyChange(Change{Rules: true}); err != nil {
		t.Fatal(err)
	}
	if st := e.StatusFor("/y"); len(st) != 1 || len(changes) != 4 || sh.reset.Load() != 3 {
		t.Fatalf("status %v, %d changes, %d resets", st, len(changes), sh.reset.Load())
	}
}

// A timeout marks the backend down at once, so a hung server costs one
// timeout, not one per admission; the probe brings it back once it
// answers.
func TestSharedTimeoutMarksDownUntilTheProbeAnswers(t *testing.T) {
	sh := &flakyShared{}
	e, err := New(Options{Shared: sh, SharedTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SetConfigRules([]Rule{{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 100}}); err != nil {
		t.Fatal(err)
	}
	sh.slow.Store(true)
	for i := range 5 {
		if a, rej := e.AdmitUserPath("/u"); rej != nil || a.shared {
			t.Fatalf("admission %d with a slow backend: %v shared=%v", i, rej, a.shared)
		}
	}
	if e.SharedHealthy() || sh.admits.Load() != 1 {
		t.Fatalf("after a timeout: healthy=%v, %d backend calls for 5 admissions, want 1", e.SharedHealthy(), sh.admits.Load())
	}
	sh.slow.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for !e.SharedHealthy() {
		if time.Now().After(deadline) {
			t.Fatal("the probe did not bring the backend back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a, _ := e.AdmitUserPath("/u"); !a.shared {
		t.Fatal("not shared once the backend answers")
	}
}
