package batches

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// RemoteBatch is the state of a batch a provider runs with its own API.
type RemoteBatch struct {
	// Status is the provider's status, one of the Status* values or
	// "expired".
	Status string
	// Total, Completed and Failed count its requests.
	Total, Completed, Failed int
	// OutputFileID and ErrorFileID are the provider's result files.
	OutputFileID, ErrorFileID string
	// Error is why a failed batch failed.
	Error string
}

// Remote runs batches on providers that have their own batch API.
type Remote interface {
	// Route returns the provider instance (and its type) that runs lines
	// of model calling endpoint, sent by a caller on userPath, with its
	// own batch API, and the model id it knows; ok is false when the
	// gateway runs such lines itself (which it does, among others, for a
	// model an access policy keeps from userPath: each such line is then
	// refused on its own, and for an endpoint the provider's batch API
	// does not take).
	Route(ctx context.Context, userPath, endpoint, model string) (provider, providerType, upstreamModel string, ok bool)
	// Submit starts a batch of input (JSONL requests to endpoint, in
	// OpenAI's input file shape) on provider and returns the provider's
	// batch id.
	Submit(ctx context.Context, provider, endpoint string, input []byte) (string, error)
	// Poll returns the state of a provider's batch.
	Poll(ctx context.Context, provider, id string) (RemoteBatch, error)
	// Fetch returns the content of a provider's result file, in OpenAI's
	// output file shape.
	Fetch(ctx context.Context, provider, fileID string) ([]byte, error)
	// Cancel asks provider to cancel its batch.
	Cancel(ctx context.Context, provider, id string) error
}

// UpstreamError is a provider's refusal or failure while a batch was
// submitted to its batch API.
type UpstreamError struct {
	Provider string
	Err      error
}

// Error implements error.
func (e *UpstreamError) Error() string { return "provider " + e.Provider + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *UpstreamError) Unwrap() error { return e.Err }

// UpstreamAnswer is an error answer of a provider's batch API, found in
// the chain of an UpstreamError's cause: the provider's HTTP status, its
// error code ("" for none) and its Retry-After header ("" for none).
type UpstreamAnswer interface {
	error
	UpstreamStatus() int
	UpstreamCode() string
	UpstreamRetryAfter() string
}

// submitRemote hands b's lines to a provider's batch API when every line's
// model routes to the same provider that has one; it reports whether it
// did. The lines go up with the provider's own model ids.
func (s *Service) submitRemote(b *Batch, lines []Line) (bool, error) {
	p := s.pipe.Load()
	if p == nil || p.Remote == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var provider, ptype string
	var input bytes.Buffer
	for i, l := range lines {
		name, typ, model, ok := p.Remote.Route(ctx, b.UserPath, b.Endpoint, l.Model)
		if !ok || (i > 0 && name != provider) {
			return false, nil
		}
		provider, ptype = name, typ
		body, err := sjson.SetBytes(l.Body, "model", model)
		if err != nil {
			return false, err
		}
		l.Body = body
		line, err := requestLine(l)
		if err != nil {
			return false, err
		}
		input.Write(line)
		input.WriteByte('\n')
	}
	id, err := p.Remote.Submit(ctx, provider, b.Endpoint, input.Bytes())
	if err != nil {
		return false, &UpstreamError{Provider: provider, Err: err}
	}
	b.Provider, b.ProviderType, b.UpstreamID = provider, ptype, id
	return true, nil
}

// requestLine is l as a line of an input file.
func requestLine(l Line) ([]byte, error) {
	line, err := sjson.SetRawBytes([]byte(`{}`), "custom_id", mustJSON(l.CustomID))
	if err == nil {
		line, err = sjson.SetBytes(line, "method", "POST")
	}
	if err == nil {
		line, err = sjson.SetBytes(line, "url", l.URL)
	}
	if err == nil {
		line, err = sjson.SetRawBytes(line, "body", l.Body)
	}
	return line, err
}

// mustJSON is s as a JSON string.
func mustJSON(s string) []byte {
	b, _ := sjson.SetBytes([]byte(`{}`), "v", s)
	return []byte(gjson.GetBytes(b, "v").Raw)
}

// follow mirrors a batch a provider runs: it polls the provider (every
// half second at first, backing off to 30 s), copies its status and
// counts, and when the provider's batch ends stores its results as the
// batch's own and finishes the batch like one the gateway ran.
func (s *Service) follow(ctx context.Context, rn *run) {
	b := rn.b
	wait := 500 * time.Millisecond
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if wait *= 2; wait > 30*time.Second {
			wait = 30 * time.Second
		}
		p := s.pipe.Load()
		if p == nil || p.Remote == nil {
			continue
		}
		rb, err := p.Remote.Poll(ctx, b.Provider, b.UpstreamID)
		if err != nil {
			s.logf(b.ID, "polling %s: %v", b.Provider, err)
			continue
		}
		final := rb.Status == StatusCompleted || rb.Status == StatusCancelled || rb.Status == StatusFailed || rb.Status == StatusExpired
		rn.mu.Lock()
		if !final && b.Status != StatusCancelling {
			if b.Status == StatusValidating && rb.Status != StatusValidating {
				b.InProgressAt = unix(time.Now())
			}
			b.Status = rb.Status
		}
		b.Total, b.Completed, b.Failed = rb.Total, rb.Completed, rb.Failed
		err = s.st.PutBatch(b)
		rn.mu.Unlock()
		if err != nil {
			s.logf(b.ID, "storing batch: %v", err)
		}
		if !final {
			continue
		}
		if rb.Status == StatusFailed {
			s.fail(rn, "provider "+b.Provider+": "+rb.Error)
			return
		}
		if err := s.collect(ctx, p.Remote, rn, rb); err != nil {
			s.logf(b.ID, "fetching results from %s: %v", b.Provider, err)
			continue
		}
		status := StatusCompleted
		switch rb.Status {
		case StatusCancelled:
			status = StatusCancelled
		case StatusExpired:
			status = StatusExpired
		}
		s.finish(rn, status)
		return
	}
}

// collect stores the results of a provider's finished batch as rn's line
// results, in the order of the input file's lines.
func (s *Service) collect(ctx context.Context, r Remote, rn *run, rb RemoteBatch) error {
	b := rn.b
	lines, err := s.inputLines(b)
	if err != nil {
		return err
	}
	index := make(map[string]int, len(lines))
	for i, l := range lines {
		index[l.CustomID] = i
	}
	for _, id := range []string{rb.OutputFileID, rb.ErrorFileID} {
		if id == "" {
			continue
		}
		data, err := r.Fetch(ctx, b.Provider, id)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			res, fault, err := remoteResult(b, sc.Bytes(), index)
			if err != nil {
				return err
			}
			if fault != catalog.UsageFaultNone {
				s.usageFault(b, fault)
			}
			if res == nil {
				continue
			}
			rn.mu.Lock()
			err = s.st.PutResult(b, res)
			rn.mu.Unlock()
			if err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return nil
}

// remoteResult is the result one line of a provider's result file
// records, priced from the catalog at batch prices; nil for a blank line.
// Its usage is taken as catalog.CheckUsage takes it: fault says what was wrong
// with it; a refused one leaves the result without usage.
func remoteResult(b *Batch, raw []byte, index map[string]int) (r *Result, fault catalog.UsageFault, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, catalog.UsageFaultNone, nil
	}
	f := gjson.GetManyBytes(raw, "custom_id", "response.status_code", "response.body", "response.request_id", "error.message")
	i, ok := index[f[0].Str]
	if !ok {
		return nil, catalog.UsageFaultNone, fmt.Errorf("result for unknown custom_id %q", f[0].Str)
	}
	now := time.Now()
	r = &Result{Line: i, CustomID: f[0].Str, StatusCode: int(f[1].Int()), RequestID: newID("req_", now), At: now,
		ProviderName: b.Provider, ProviderType: b.ProviderType}
	if f[2].IsObject() {
		r.Body = []byte(f[2].Raw)
	} else {
		msg := f[4].Str
		if msg == "" {
			msg = "the provider returned no answer for this request"
		}
		r.Body = apierr.MessageBody(apierr.TypeProvider, msg)
		if r.StatusCode == 0 {
			r.StatusCode = 500
		}
	}
	if r.OK() {
		// The provider's own string: bounded like every model that
		// becomes part of a storage key.
		r.Model = catalog.RecordedModelID(gjson.GetBytes(r.Body, "model").Str)
		u, ok := answerUsage(b.Endpoint, gjson.GetBytes(r.Body, "usage"))
		if ok {
			u, fault, ok = catalog.CheckUsage(u)
		}
		if ok {
			r.Usage, r.HasUsage = u, true
			// The provider bills its batch API at its batch prices.
			if m, ok := catalog.Lookup(b.ProviderType, r.Model); ok && m.Pricing != nil {
				r.setCost(catalog.CostBreakdown(*m.Pricing, catalog.Consumption{Usage: u, Batch: true}))
			}
		}
	}
	return r, fault, nil
}

// answerUsage reads the usage object of an answer to endpoint: a
// Messages answer's for a message batch, a chat or embeddings answer's
// otherwise.
func answerUsage(endpoint string, u gjson.Result) (catalog.Usage, bool) {
	if endpoint != MessagesEndpoint {
		return translate.ChatUsage(u)
	}
	if !u.IsObject() {
		return catalog.Usage{}, false
	}
	var m translate.MessagesUsage
	m.Merge(u)
	return m.Usage(), true
}

// usageFault logs and counts (Options.UsageRejected) a fault of the usage
// batch b's provider reported for one result line.
func (s *Service) usageFault(b *Batch, fault catalog.UsageFault) {
	s.logger.Warn("batch result usage corrected: "+fault.Consequence(), zap.String("batch", b.ID), zap.String("provider", b.Provider),
		zap.String("reason", string(fault)), zap.Int64("max_count", catalog.MaxTokenCount))
	if s.usageRejected != nil {
		s.usageRejected(b.Provider, fault)
	}
}

// errNoRemote is returned when a batch's provider cannot be reached.
var errNoRemote = errors.New("no provider batch API is configured")
