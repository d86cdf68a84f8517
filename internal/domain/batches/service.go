package batches

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// DefaultWorkers is how many batch lines run at once, across all batches,
// when Options.Workers is not set: batches run at low priority, so they
// never take more than a sliver of the gateway's capacity.
const DefaultWorkers = 2

// maxRetries is how many times a line answered 429 or 5xx (a saturated or
// failing target) is tried again before its answer is kept.
const maxRetries = 4

// errCancelled is the cause of a batch's context when its caller cancelled
// it; any other cause (the service stopping) leaves the batch to resume.
var errCancelled = errors.New("batch cancelled")

// Outcome is the pipeline's answer to one line.
type Outcome struct {
	// Status is the HTTP status of the answer.
	Status int
	// Body is the answer's body.
	Body []byte
	// RetryAfter is the wait a 429 asked for, 0 when none.
	RetryAfter time.Duration
	// ProviderName, ProviderType and Model are the target that executed
	// the line, empty when none did.
	ProviderName, ProviderType, Model string
	// Usage is the answer's token usage, when HasUsage.
	Usage    catalog.Usage
	HasUsage bool
	// Cost is what the line cost and where the figure comes from
	// (reqinfo.Info.Cost), when Priced.
	Cost   catalog.Breakdown
	Priced bool
}

// Executor runs one request line through the gateway's model pipeline, as
// a request of userPath to endpoint with body. It returns when the answer
// is complete or ctx is done.
type Executor interface {
	Execute(ctx context.Context, userPath, endpoint string, body []byte) Outcome
}

// UsageSink takes the usage records of finished batches (the audit
// recorder).
type UsageSink interface {
	RecordUsage(u *audit.UsageRecord)
}

// Spender charges the spend of finished batch lines to the budgets
// covering userPath.
type Spender interface {
	Charge(userPath string, cost float64, at time.Time)
}

// Pipeline is what the runner sends lines through and reports to. On a
// configuration reload the new configuration installs its own (Use).
type Pipeline struct {
	// Executor runs the lines; required.
	Executor Executor
	// Usage records usage; nil records nothing.
	Usage UsageSink
	// Spend charges budgets; nil charges nothing.
	Spend Spender
	// Remote runs batches on providers with their own batch API; nil
	// runs every batch in the gateway.
	Remote Remote
}

// Options configures a Service.
type Options struct {
	// Storage keeps files, batches and line results; required.
	Storage Storage
	// Workers bounds the lines running at once across all batches;
	// DefaultWorkers when 0 or less.
	Workers int
	// Logger receives runner failures; nil logs nothing.
	Logger *zap.Logger
	// UsageRejected is called with the provider's name for each result of
	// a provider-run batch whose usage has a fault (catalog.CheckUsage); nil
	// counts nothing. The fault is logged either way.
	UsageRejected func(provider string, fault catalog.UsageFault)
}

// Service is the files and batches domain: it stores uploads, accepts
// batches and runs them in the background. It is safe for concurrent use.
type Service struct {
	st     Storage
	logger *zap.Logger
	// usageRejected is Options.UsageRejected.
	usageRejected func(provider string, fault catalog.UsageFault)
	sem           chan struct{}
	pipe          atomic.Pointer[Pipeline]

	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	runs   map[string]*run
	closed bool
}

// run is a batch the runner is executing.
type run struct {
	mu     sync.Mutex // guards b and its writes
	b      *Batch
	cancel context.CancelCauseFunc
}

// New returns a Service over opts.Storage. It runs nothing until Use
// installs a pipeline and Resume is called.
func New(opts Options) *Service {
	w := opts.Workers
	if w <= 0 {
		w = DefaultWorkers
	}
	l := opts.Logger
	if l == nil {
		l = zap.NewNop()
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Service{st: opts.Storage, logger: l, usageRejected: opts.UsageRejected, sem: make(chan struct{}, w), ctx: ctx,
		stop: stop, runs: make(map[string]*run)}
}

// Use installs the pipeline batch lines run through from now on.
func (s *Service) Use(p Pipeline) { s.pipe.Store(&p) }

// Resume starts every stored batch that has not finished, and records the
// usage of finished ones whose usage was not recorded yet (the gateway
// stopped in between).
func (s *Service) Resume() error {
	list, err := s.st.Batches()
	if err != nil {
		return err
	}
	for _, b := range list {
		if !b.Finished() || !b.UsageRecorded {
			s.launch(b)
		}
	}
	return nil
}

// Close stops the runner and waits for it. Lines in flight are abandoned
// unrecorded and run again when a later Service resumes the batch.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.wg.Wait()
	return nil
}

// Destruct implements caddy.Destructor (Close), so that one Service can be
// shared across configuration loads.
func (s *Service) Destruct() error { return s.Close() }

// launch starts running b in the background, unless it already runs or
// the service is closed.
func (s *Service) launch(b *Batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.runs[b.ID] != nil {
		return
	}
	ctx, cancel := context.WithCancelCause(s.ctx)
	rn := &run{b: b, cancel: cancel}
	s.runs[b.ID] = rn
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.runs, b.ID)
			s.mu.Unlock()
			cancel(nil)
		}()
		release, ok := s.claim(b.ID)
		if !ok {
			return
		}
		defer release()
		if !s.refresh(rn) {
			return
		}
		s.execute(ctx, rn)
	}()
}

// unix is t in Unix seconds.
func unix(t time.Time) int64 { return t.Unix() }

// newID returns a fresh id with prefix, sorting by creation time.
func newID(prefix string, t time.Time) string {
	return prefix + strings.ToLower(audit.NewID(t).String())
}

// idTime returns the creation time encoded in an id made by newID.
func idTime(id string) (audit.ID, bool) {
	_, rest, ok := strings.Cut(id, "_")
	if !ok {
		_, rest, ok = strings.Cut(id, "-")
	}
	if !ok {
		return audit.ID{}, false
	}
	a, err := audit.ParseID(rest)
	return a, err == nil
}

// logf logs a runner failure for batch id.
func (s *Service) logf(id, format string, args ...any) {
	s.logger.Warn(fmt.Sprintf(format, args...), zap.String("batch", id))
}
