package batches

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// execute runs the batch of rn to its end: every line without a stored
// result, then the output files and usage records. It returns early,
// leaving the batch to resume, when the service stops.
func (s *Service) execute(ctx context.Context, rn *run) {
	b := rn.b
	// A cancel may change the batch meanwhile: read its state under the
	// run's lock.
	rn.mu.Lock()
	finished, remote := b.Finished(), b.UpstreamID != ""
	status, cancelling := b.Status, b.CancellingAt != 0
	rn.mu.Unlock()
	if finished {
		s.recordUsage(rn)
		return
	}
	if remote {
		s.follow(ctx, rn)
		return
	}
	if status == StatusCancelling || status == StatusFinalizing {
		end := StatusCompleted
		if cancelling {
			end = StatusCancelled
		}
		s.finish(rn, end)
		return
	}
	lines, err := s.inputLines(b)
	if err != nil {
		s.fail(rn, "input file: "+err.Error())
		return
	}
	done, err := s.st.Results(b.ID)
	if err != nil {
		s.logf(b.ID, "reading results: %v", err)
		return
	}
	have := make(map[int]bool, len(done))
	rn.mu.Lock()
	b.Total, b.Completed, b.Failed = len(lines), 0, 0
	for _, r := range done {
		have[r.Line] = true
		s.count(b, r)
	}
	if b.Status == StatusValidating {
		b.Status, b.InProgressAt = StatusInProgress, unix(time.Now())
	}
	err = s.st.PutBatch(b)
	rn.mu.Unlock()
	if err != nil {
		s.logf(b.ID, "storing batch: %v", err)
		return
	}

	var wg sync.WaitGroup
lines:
	for i, line := range lines {
		if have[i] {
			continue
		}
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			break lines
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-s.sem }()
			res, ok := s.runLine(ctx, b, i, line)
			if !ok {
				return
			}
			rn.mu.Lock()
			defer rn.mu.Unlock()
			s.count(b, res)
			if err := s.st.PutResult(b, res); err != nil {
				s.logf(b.ID, "storing line %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	switch context.Cause(ctx) {
	case nil:
		s.finish(rn, StatusCompleted)
	case errCancelled:
		s.finish(rn, StatusCancelled)
	}
	// Otherwise the service is stopping: the batch resumes later.
}

// count adds r to b's request counts.
func (s *Service) count(b *Batch, r *Result) {
	if r.OK() {
		b.Completed++
	} else {
		b.Failed++
	}
}

// runLine sends line i of b through the pipeline, trying again (after the
// wait the answer asks for, or a growing pause) while the target is
// saturated or failing. ok is false when ctx ended first: the line is then
// not done.
func (s *Service) runLine(ctx context.Context, b *Batch, i int, line Line) (*Result, bool) {
	pause := 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		p := s.pipe.Load()
		if p == nil || p.Executor == nil {
			return nil, false
		}
		out := p.Executor.Execute(ctx, b.UserPath, line.URL, line.Body)
		if ctx.Err() != nil {
			return nil, false
		}
		retry := out.Status == http.StatusTooManyRequests || out.Status >= 500 || out.Status == 0
		if retry && attempt < maxRetries {
			wait := pause
			if out.RetryAfter > wait {
				wait = out.RetryAfter
			}
			pause *= 2
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				continue
			case <-ctx.Done():
				t.Stop()
				return nil, false
			}
		}
		now := time.Now()
		r := &Result{
			Line: i, CustomID: line.CustomID, StatusCode: out.Status, RequestID: newID("req_", now), At: now,
			ProviderName: out.ProviderName, ProviderType: out.ProviderType, Model: out.Model,
			Usage: out.Usage, HasUsage: out.HasUsage,
		}
		if out.Priced {
			r.setCost(out.Cost)
		}
		if json.Valid(out.Body) {
			r.Body = out.Body
		} else {
			r.Body = apierr.MessageBody(apierr.TypeProvider, "the answer was not JSON")
		}
		return r, true
	}
}

// fail ends b as failed before any line ran.
func (s *Service) fail(rn *run, reason string) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.b.Status, rn.b.FailedAt, rn.b.FailReason = StatusFailed, unix(time.Now()), reason
	rn.b.UsageRecorded = true
	if err := s.st.PutBatch(rn.b); err != nil {
		s.logf(rn.b.ID, "storing batch: %v", err)
	}
}

// outputLine is one line of an output or error file.
type outputLine struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *outputResponse `json:"response"`
	Error    any             `json:"error"`
}

// outputResponse is the answer a line got.
type outputResponse struct {
	StatusCode int             `json:"status_code"`
	RequestID  string          `json:"request_id"`
	Body       json.RawMessage `json:"body"`
}

// finish writes b's output and error files (answered lines, in line
// order), sets its final status and records its usage.
func (s *Service) finish(rn *run, status string) {
	b := rn.b
	rn.mu.Lock()
	if b.FinalizingAt == 0 {
		b.FinalizingAt = unix(time.Now())
	}
	if status == StatusCompleted {
		b.Status = StatusFinalizing
	}
	err := s.st.PutBatch(b)
	rn.mu.Unlock()
	if err != nil {
		s.logf(b.ID, "storing batch: %v", err)
		return
	}
	results, err := s.st.Results(b.ID)
	if err != nil {
		s.logf(b.ID, "reading results: %v", err)
		return
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Line < results[j].Line })
	var out, bad bytes.Buffer
	for _, r := range results {
		l := outputLine{ID: "batch_req_" + r.RequestID[len("req_"):], CustomID: r.CustomID,
			Response: &outputResponse{StatusCode: r.StatusCode, RequestID: r.RequestID, Body: r.Body}}
		buf := &out
		if !r.OK() {
			buf = &bad
		}
		line, _ := json.Marshal(l)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	now := time.Now()
	rn.mu.Lock()
	defer rn.mu.Unlock()
	// A message batch's results are read from its line results
	// (MessageResults), not from files.
	if b.Kind != KindMessages && b.OutputFileID == "" && out.Len() > 0 {
		b.OutputFileID = s.putOutput(b, "output", out.Bytes(), now)
	}
	if b.Kind != KindMessages && b.ErrorFileID == "" && bad.Len() > 0 {
		b.ErrorFileID = s.putOutput(b, "error", bad.Bytes(), now)
	}
	b.Status = status
	switch status {
	case StatusCancelled:
		b.CancelledAt = unix(now)
	case StatusExpired:
	default:
		b.CompletedAt = unix(now)
	}
	if err := s.st.PutBatch(b); err != nil {
		s.logf(b.ID, "storing batch: %v", err)
		return
	}
	s.recordUsageLocked(b, results)
}

// putOutput stores one result file of b and returns its id ("" when it
// could not be stored).
func (s *Service) putOutput(b *Batch, kind string, content []byte, now time.Time) string {
	f := &File{ID: newID("file-", now), UserPath: b.UserPath, Bytes: int64(len(content)), CreatedAt: unix(now),
		Filename: b.ID + "_" + kind + ".jsonl", Purpose: "batch_output"}
	if err := s.st.PutFile(f, content); err != nil {
		s.logf(b.ID, "storing %s file: %v", kind, err)
		return ""
	}
	return f.ID
}

// recordUsage records the usage of rn's finished batch, once.
func (s *Service) recordUsage(rn *run) {
	results, err := s.st.Results(rn.b.ID)
	if err != nil {
		s.logf(rn.b.ID, "reading results: %v", err)
		return
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	s.recordUsageLocked(rn.b, results)
}

// recordUsageLocked hands one usage record per line with usage to the
// pipeline's sink and charges their spend, then marks b so that this
// happens once. The records carry the line's own time and the batch's id
// as their request id.
func (s *Service) recordUsageLocked(b *Batch, results []*Result) {
	if b.UsageRecorded {
		return
	}
	p := s.pipe.Load()
	if p == nil {
		return
	}
	reqID, _ := idTime(b.ID)
	for _, r := range results {
		if !r.HasUsage {
			continue
		}
		if p.Usage != nil {
			u := &audit.UsageRecord{
				Timestamp: r.At, RequestID: reqID, UserPath: b.UserPath,
				ProviderName: r.ProviderName, ProviderType: r.ProviderType, Model: r.Model,
				Endpoint: b.Endpoint, StatusCode: r.StatusCode, Usage: r.Usage,
			}
			r.usageCost(u)
			p.Usage.RecordUsage(u)
		}
		if p.Spend != nil && r.TotalCost != nil && *r.TotalCost > 0 {
			p.Spend.Charge(b.UserPath, *r.TotalCost, r.At)
		}
	}
	b.UsageRecorded = true
	if err := s.st.PutBatch(b); err != nil {
		s.logf(b.ID, "storing batch: %v", err)
	}
}
