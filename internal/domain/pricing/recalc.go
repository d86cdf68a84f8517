package pricing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// UsageStore is the storage of usage records that a recalculation
// rewrites.
type UsageStore interface {
	// RepriceUsage calls reprice for every usage record made in
	// [from, to), oldest first. When reprice changes the record (it
	// returns true, having set new cost pointers with SetCost) the store
	// writes the record back and moves its hour and day aggregates and
	// its session's totals by the difference, so that they stay the sums
	// of their records. It stops with ctx's error when ctx ends; what was
	// written until then stays.
	RepriceUsage(ctx context.Context, from, to time.Time, reprice func(*audit.UsageRecord) bool) error
}

// RecalcRequest is the body of POST /admin/usage/recalculate.
type RecalcRequest struct {
	// StartDate is the window's first day (YYYY-MM-DD, UTC).
	StartDate string `json:"start_date"`
	// EndDate is the window's last day, included (YYYY-MM-DD, UTC).
	EndDate string `json:"end_date"`
	// Provider, when set, limits the run to records of that provider
	// name or type.
	Provider string `json:"provider,omitempty"`
	// Model, when set, limits the run to records of that model.
	Model string `json:"model,omitempty"`
	// UserPath, when set, limits the run to records of that user path
	// and the paths below it.
	UserPath string `json:"user_path,omitempty"`
}

// MaxRecalcDays bounds a recalculation's window.
const MaxRecalcDays = 366

// window returns the request's [from, to) or a validation error.
func (q RecalcRequest) window() (from, to time.Time, err error) {
	from, err = time.Parse(time.DateOnly, q.StartDate)
	if err != nil {
		return from, to, fmt.Errorf("%w: %w", ErrInvalid, apierr.FieldMsg("start_date", "must be a date, YYYY-MM-DD"))
	}
	last, err := time.Parse(time.DateOnly, q.EndDate)
	if err != nil {
		return from, to, fmt.Errorf("%w: %w", ErrInvalid, apierr.FieldMsg("end_date", "must be a date, YYYY-MM-DD"))
	}
	to = last.AddDate(0, 0, 1)
	switch {
	case last.Before(from):
		return from, to, fmt.Errorf("%w: %w", ErrInvalid, apierr.FieldMsg("end_date", "must not be before start_date"))
	case to.Sub(from) > MaxRecalcDays*24*time.Hour:
		return from, to, fmt.Errorf("%w: %w", ErrInvalid, apierr.FieldMsg("end_date", fmt.Sprintf("the window may span at most %d days", MaxRecalcDays)))
	}
	return from, to, nil
}

// matches reports whether r is selected by the request's filters.
func (q RecalcRequest) matches(r *audit.UsageRecord) bool {
	return (q.Provider == "" || r.ProviderName == q.Provider || r.ProviderType == q.Provider) &&
		(q.Model == "" || r.Model == q.Model) &&
		(q.UserPath == "" || userpath.Covers(q.UserPath, r.UserPath))
}

// Job states.
const (
	// JobRunning: the recalculation is under way.
	JobRunning = "running"
	// JobDone: it finished; the figures are final.
	JobDone = "done"
	// JobFailed: it stopped on an error; what it changed until then stays.
	JobFailed = "failed"
)

// Job is a recalculation's progress and, once done, its result. Costs
// are in USD, summed over the changed records in nano-USD.
type Job struct {
	// ID names the job.
	ID string `json:"id"`
	// Status is running, done or failed.
	Status string `json:"status"`
	// Request is what was asked.
	Request RecalcRequest `json:"request"`
	// RecordsScanned counts the records of the window read so far.
	RecordsScanned int64 `json:"records_scanned"`
	// RecordsChanged counts the records whose cost changed.
	RecordsChanged int64 `json:"records_changed"`
	// CostBefore is what the changed records cost before.
	CostBefore float64 `json:"cost_before"`
	// CostAfter is what they cost now.
	CostAfter float64 `json:"cost_after"`
	// Delta is CostAfter − CostBefore.
	Delta float64 `json:"delta"`
	// Error says why a failed job stopped.
	Error string `json:"error,omitempty"`
	// StartedAt and FinishedAt (null while running) date the job.
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// MaxJobs bounds the jobs kept for the status route; the oldest
// finished ones go first.
const MaxJobs = 100

// Recalculator runs recalculations in the background and keeps their
// status.
type Recalculator struct {
	usage  UsageStore
	spend  func() SpendAdjustment
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	jobs   map[string]*jobState
	order  []string
	wg     sync.WaitGroup
}

// jobState is a job with its running sums.
type jobState struct {
	job           Job
	before, after catalog.Nanos
	done          chan struct{}
}

// SpendAdjustment takes the changes of cost of one run, to move the
// budgets' spend by them (budgets.Adjustment).
type SpendAdjustment interface {
	// Add notes that the record of userPath made at at changed cost by
	// delta.
	Add(userPath string, at time.Time, delta catalog.Nanos)
	// Apply moves the spend by the changes noted, once the run has
	// written them.
	Apply() error
}

// NewRecalculator returns a recalculator over usage; spend, when set,
// starts for each run the adjustment of the budgets' spend (in every
// process sharing it) by the changes of cost the run writes.
func NewRecalculator(usage UsageStore, spend func() SpendAdjustment) *Recalculator {
	ctx, cancel := context.WithCancel(context.Background())
	return &Recalculator{usage: usage, spend: spend, ctx: ctx, cancel: cancel, jobs: map[string]*jobState{}}
}

// Close stops the running jobs and waits for them.
func (r *Recalculator) Close() {
	r.cancel()
	r.wg.Wait()
}

// Start validates q and starts its job, then waits up to wait for it to
// finish, so that a small window answers with its result; it returns the
// job's status either way.
func (r *Recalculator) Start(q RecalcRequest, wait time.Duration) (Job, error) {
	from, to, err := q.window()
	if err != nil {
		return Job{}, err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	js := &jobState{job: Job{ID: "recalc_" + hex.EncodeToString(id[:]), Status: JobRunning, Request: q,
		StartedAt: time.Now().UTC()}, done: make(chan struct{})}
	r.mu.Lock()
	r.jobs[js.job.ID] = js
	r.order = append(r.order, js.job.ID)
	r.trim()
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.run(js, from, to)
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-js.done:
	case <-t.C:
	}
	j, _ := r.Status(js.job.ID)
	return j, nil
}

// trim drops the oldest finished jobs beyond MaxJobs; r.mu is held.
func (r *Recalculator) trim() {
	for i := 0; len(r.order) > MaxJobs && i < len(r.order); {
		id := r.order[i]
		if r.jobs[id].job.Status == JobRunning {
			i++
			continue
		}
		delete(r.jobs, id)
		r.order = append(r.order[:i], r.order[i+1:]...)
	}
}

// Status returns the job of id.
func (r *Recalculator) Status(id string) (Job, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	js := r.jobs[id]
	if js == nil {
		return Job{}, false
	}
	j := js.job
	j.CostBefore, j.CostAfter, j.Delta = js.before.Float(), js.after.Float(), (js.after - js.before).Float()
	return j, true
}

// Wait blocks until the job of id has finished, and reports false when
// there is no such job.
func (r *Recalculator) Wait(id string) bool {
	r.mu.Lock()
	js := r.jobs[id]
	r.mu.Unlock()
	if js == nil {
		return false
	}
	<-js.done
	return true
}

// run reprices the window and then rebuilds the budgets' spend.
func (r *Recalculator) run(js *jobState, from, to time.Time) {
	defer close(js.done)
	q := js.job.Request
	var adj SpendAdjustment
	if r.spend != nil {
		adj = r.spend()
	}
	err := r.usage.RepriceUsage(r.ctx, from, to, func(rec *audit.UsageRecord) bool {
		r.mu.Lock()
		js.job.RecordsScanned++
		r.mu.Unlock()
		if !q.matches(rec) {
			return false
		}
		before := catalog.NanosOf(rec.Spend())
		if !Reprice(rec) {
			return false
		}
		after := catalog.NanosOf(rec.Spend())
		if adj != nil {
			adj.Add(rec.UserPath, rec.Timestamp, after-before)
		}
		r.mu.Lock()
		js.job.RecordsChanged++
		js.before, js.after = js.before.Add(before), js.after.Add(after)
		r.mu.Unlock()
		return true
	})
	r.mu.Lock()
	changed := js.job.RecordsChanged
	r.mu.Unlock()
	if err == nil && changed > 0 && adj != nil {
		if aerr := adj.Apply(); aerr != nil {
			err = fmt.Errorf("the records were repriced but the budgets' spend could not be moved by the change: %w", aerr)
		}
	}
	now := time.Now().UTC()
	r.mu.Lock()
	defer r.mu.Unlock()
	js.job.FinishedAt = &now
	js.job.Status = JobDone
	if err != nil {
		js.job.Status = JobFailed
		js.job.Error = err.Error()
		if errors.Is(err, context.Canceled) {
			js.job.Error = "the gateway stopped before the recalculation finished"
		}
	}
}

// Reprice sets r's cost to what its tokens cost at the prices in force
// (an override, else the catalog) and reports whether that changed it.
// A cost the provider reported, a cache hit and a record whose model has
// no price today are kept.
func Reprice(r *audit.UsageRecord) bool {
	if r.IsCacheHit() || r.CostSource == catalog.CostSourceProvider {
		return false
	}
	b, ok := catalog.RequestCostOn(r.ProviderName, r.ProviderType, r.Model, catalog.Consumption{Usage: r.Usage}, catalog.ReportedCost{})
	if !ok {
		return false
	}
	if r.TotalCost != nil && r.CostSource == b.Source && catalog.NanosOf(*r.TotalCost) == catalog.NanosOf(b.Total) {
		return false
	}
	r.SetCost(b)
	return true
}
