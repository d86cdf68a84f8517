package batches

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// ErrInvalid wraps the reasons a request is refused.
var ErrInvalid = errors.New("invalid request")

// invalid returns an ErrInvalid error naming param, code
// apierr.CodeInvalidValue.
func invalid(param, format string, args ...any) error {
	return &InvalidError{Param: param, Code: apierr.CodeInvalidValue, Message: fmt.Sprintf(format, args...)}
}

// missing returns the ErrInvalid error of a required field left out, code
// apierr.CodeMissingParameter.
func missing(param string) error {
	return &InvalidError{Param: param, Code: apierr.CodeMissingParameter, Message: param + " is required"}
}

// InvalidError is a refused request: Param names the field at fault and
// Code says what is wrong with it.
type InvalidError struct {
	Param   string
	Code    string
	Message string
}

// Error implements error.
func (e *InvalidError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// FinishedError refuses to cancel a batch that has already reached a
// final status: nothing is left to cancel, and answering as if the cancel
// had happened would hide that the batch ran to its end.
type FinishedError struct {
	// Status is the batch's final status.
	Status string
}

// Error implements error.
func (e *FinishedError) Error() string {
	return fmt.Sprintf("cannot cancel a batch with status %q", e.Status)
}

// Caller is who asks: the user path the request runs under, and whether
// the caller may see every user path's files and batches (an admin).
type Caller struct {
	UserPath string
	Admin    bool
}

// sees reports whether c may see something owned by userPath.
func (c Caller) sees(userPath string) bool { return c.Admin || c.UserPath == userPath }

// Upload stores a JSONL input file of c's after checking every line.
func (s *Service) Upload(c Caller, filename, purpose string, content []byte) (*File, error) {
	if purpose == "" {
		return nil, missing("purpose")
	}
	if purpose != PurposeBatch {
		return nil, invalid("purpose", "purpose must be %q", PurposeBatch)
	}
	if _, err := ParseInput(content); err != nil {
		return nil, invalid("file", "%v", err)
	}
	now := time.Now()
	f := &File{ID: newID("file-", now), UserPath: c.UserPath, Bytes: int64(len(content)), CreatedAt: unix(now),
		Filename: filename, Purpose: purpose}
	if err := s.st.PutFile(f, content); err != nil {
		return nil, err
	}
	return f, nil
}

// File returns c's file id, or ErrNotFound. The file of a message
// batch's requests is the gateway's own: not found here.
func (s *Service) File(c Caller, id string) (*File, error) {
	f, err := s.st.File(id)
	if err != nil {
		return nil, err
	}
	if !c.sees(f.UserPath) || f.Purpose == purposeMessageBatch {
		return nil, ErrNotFound
	}
	return f, nil
}

// FileContent returns the content of c's file id, or ErrNotFound.
func (s *Service) FileContent(c Caller, id string) (*File, []byte, error) {
	f, err := s.File(c, id)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.st.FileContent(id)
	return f, b, err
}

// CreateRequest is the body of a batch submission.
type CreateRequest struct {
	InputFileID      string            `json:"input_file_id"`
	Endpoint         string            `json:"endpoint"`
	CompletionWindow string            `json:"completion_window"`
	Metadata         map[string]string `json:"metadata"`
}

// Create accepts a batch of c's over an uploaded file whose lines all call
// req.Endpoint, stores it and starts running it. It returns the batch and
// the model of its first line.
func (s *Service) Create(c Caller, req CreateRequest) (*Batch, string, error) {
	// A field left out is missing_required_parameter, as for
	// input_file_id, not a wrong value.
	if req.Endpoint == "" {
		return nil, "", missing("endpoint")
	}
	if req.CompletionWindow == "" {
		return nil, "", missing("completion_window")
	}
	if !supportedEndpoint(req.Endpoint) {
		return nil, "", invalid("endpoint", "endpoint must be /v1/chat/completions or /v1/embeddings")
	}
	if req.CompletionWindow != "24h" {
		return nil, "", invalid("completion_window", "completion_window must be \"24h\"")
	}
	if req.InputFileID == "" {
		return nil, "", missing("input_file_id")
	}
	f, content, err := s.FileContent(c, req.InputFileID)
	if errors.Is(err, ErrNotFound) {
		return nil, "", invalid("input_file_id", "no file %s", req.InputFileID)
	}
	if err != nil {
		return nil, "", err
	}
	if f.Purpose != PurposeBatch {
		return nil, "", invalid("input_file_id", "file %s is not a batch input file", f.ID)
	}
	lines, err := ParseInput(content)
	if err != nil {
		return nil, "", invalid("input_file_id", "%v", err)
	}
	for i, l := range lines {
		if l.URL != req.Endpoint {
			return nil, "", invalid("input_file_id", "request %d (custom_id %q) calls %s, not the batch's endpoint %s",
				i+1, l.CustomID, l.URL, req.Endpoint)
		}
	}
	now := time.Now()
	b := &Batch{
		ID: newID("batch_", now), UserPath: c.UserPath, Endpoint: req.Endpoint, InputFileID: f.ID,
		CompletionWindow: req.CompletionWindow, Status: StatusValidating, Metadata: req.Metadata,
		Total: len(lines), CreatedAt: unix(now), ExpiresAt: unix(now.Add(24 * time.Hour)),
	}
	view, err := s.start(b, lines, nil)
	if err != nil {
		return nil, "", err
	}
	return view, lines[0].Model, nil
}

// start hands the new batch b of lines to a provider's batch API when one
// runs them all, else to the runner, once b (and, when input is not nil,
// its input file) is stored. It returns a copy of b.
func (s *Service) start(b *Batch, lines []Line, input *File) (*Batch, error) {
	var content bytes.Buffer
	if input != nil {
		for _, l := range lines {
			line, err := requestLine(l)
			if err != nil {
				return nil, err
			}
			content.Write(line)
			content.WriteByte('\n')
		}
	}
	if _, err := s.submitRemote(b, lines); err != nil {
		return nil, err
	}
	if input != nil {
		input.Bytes = int64(content.Len())
		if err := s.st.PutFile(input, content.Bytes()); err != nil {
			return nil, err
		}
	}
	if err := s.st.PutBatch(b); err != nil {
		return nil, err
	}
	view := *b
	s.launch(b)
	return &view, nil
}

// Batch returns c's batch id, or ErrNotFound.
func (s *Service) Batch(c Caller, id string) (*Batch, error) { return s.batchOf(c, id, "") }

// batchOf returns c's batch id of kind, or ErrNotFound (for a batch of
// another kind too).
func (s *Service) batchOf(c Caller, id, kind string) (*Batch, error) {
	s.mu.Lock()
	rn := s.runs[id]
	s.mu.Unlock()
	if rn != nil {
		rn.mu.Lock()
		b := *rn.b
		rn.mu.Unlock()
		if !c.sees(b.UserPath) || b.Kind != kind {
			return nil, ErrNotFound
		}
		return &b, nil
	}
	b, err := s.st.Batch(id)
	if err != nil {
		return nil, err
	}
	if !c.sees(b.UserPath) || b.Kind != kind {
		return nil, ErrNotFound
	}
	return b, nil
}

// List returns up to limit of c's batches, newest first, starting after
// the batch with id after (none: from the newest), and whether more
// follow.
func (s *Service) List(c Caller, after string, limit int) ([]*Batch, bool, error) {
	return s.page(c, "", "", after, limit)
}

// page returns up to limit of c's batches of kind, newest first: those
// right after the batch with id after, or right before the one with id
// before (neither: from the newest), and whether more follow in that
// direction. A cursor that names no batch of c's gives an empty page.
func (s *Service) page(c Caller, kind, before, after string, limit int) ([]*Batch, bool, error) {
	all, err := s.st.Batches()
	if err != nil {
		return nil, false, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ID > all[j].ID })
	var mine []*Batch
	for _, b := range all {
		if c.sees(b.UserPath) && b.Kind == kind {
			mine = append(mine, b)
		}
	}
	cursor := func(id string) int {
		for i, b := range mine {
			if b.ID == id {
				return i
			}
		}
		return -1
	}
	switch {
	case after != "":
		i := cursor(after)
		if i < 0 {
			return nil, false, nil
		}
		mine = mine[i+1:]
	case before != "":
		i := cursor(before)
		if i < 0 {
			return nil, false, nil
		}
		mine = mine[:i]
		more := len(mine) > limit
		if more {
			mine = mine[len(mine)-limit:]
		}
		return s.current(c, kind, mine), more, nil
	}
	more := len(mine) > limit
	if more {
		mine = mine[:limit]
	}
	return s.current(c, kind, mine), more, nil
}

// current returns list with each batch the runner is running replaced by
// its running state.
func (s *Service) current(c Caller, kind string, list []*Batch) []*Batch {
	out := make([]*Batch, len(list))
	for i, b := range list {
		cur, err := s.batchOf(c, b.ID, kind)
		if err != nil {
			cur = b
		}
		out[i] = cur
	}
	return out
}

// Cancel cancels c's batch id: lines not yet run are dropped, and the
// batch ends cancelled with the results of the lines that ran. A batch
// that has finished is refused with a *FinishedError; one already
// cancelling is returned unchanged.
func (s *Service) Cancel(c Caller, id string) (*Batch, error) { return s.cancelOf(c, id, "") }

// cancelOf is Cancel for c's batch id of kind.
func (s *Service) cancelOf(c Caller, id, kind string) (*Batch, error) {
	if _, err := s.batchOf(c, id, kind); err != nil {
		return nil, err
	}
	s.mu.Lock()
	rn := s.runs[id]
	s.mu.Unlock()
	if rn == nil {
		b, err := s.st.Batch(id)
		if err != nil {
			return nil, err
		}
		changed, err := s.markCancelling(b)
		if err != nil {
			return nil, err
		}
		if changed {
			err = s.st.PutBatch(b)
		}
		return b, err
	}
	rn.mu.Lock()
	remote := rn.b.UpstreamID != ""
	changed, err := s.markCancelling(rn.b)
	if err == nil && changed {
		err = s.st.PutBatch(rn.b)
	}
	if err != nil {
		rn.mu.Unlock()
		return nil, err
	}
	b := *rn.b
	rn.mu.Unlock()
	if !remote { // a provider's batch ends when the provider says so
		rn.cancel(errCancelled)
	}
	return &b, nil
}

// markCancelling moves b to cancelling and reports whether it changed it:
// a finished batch is refused with a *FinishedError, one already
// cancelling is left as it is, and one running on the provider's batch
// API is cancelled there first.
func (s *Service) markCancelling(b *Batch) (changed bool, err error) {
	if b.Finished() {
		return false, &FinishedError{Status: b.Status}
	}
	if b.Status == StatusCancelling {
		return false, nil
	}
	if b.UpstreamID != "" {
		if err := s.cancelRemote(b); err != nil {
			return false, err
		}
	}
	b.Status, b.CancellingAt = StatusCancelling, unix(time.Now())
	return true, nil
}

// cancelRemote asks the provider running b to cancel it.
func (s *Service) cancelRemote(b *Batch) error {
	p := s.pipe.Load()
	if p == nil || p.Remote == nil {
		return errNoRemote
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Remote.Cancel(ctx, b.Provider, b.UpstreamID); err != nil {
		return &UpstreamError{Provider: b.Provider, Err: err}
	}
	return nil
}
