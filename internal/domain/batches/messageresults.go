package batches

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Result types of a message batch's results, as Anthropic names them.
const (
	ResultSucceeded = "succeeded"
	ResultErrored   = "errored"
	ResultCanceled  = "canceled"
	ResultExpired   = "expired"
)

// messageResultLine is one line of a message batch's results.
type messageResultLine struct {
	CustomID string        `json:"custom_id"`
	Result   messageResult `json:"result"`
}

// messageResult is the outcome of one request of a message batch: the
// message it was answered with, or the error it failed with, or neither
// for a request the batch's cancel or expiry kept from running.
type messageResult struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// MessageResults returns the results of c's ended message batch id, one
// JSON line per request in request order: succeeded with its message,
// errored with an Anthropic error envelope, or canceled or expired for a
// request that never ran. A batch that has not ended is refused with a
// *NotEndedError.
func (s *Service) MessageResults(c Caller, id string) ([]byte, error) {
	b, err := s.MessageBatch(c, id)
	if err != nil {
		return nil, err
	}
	if !b.Finished() {
		return nil, &NotEndedError{ID: id}
	}
	lines, err := s.inputLines(b)
	if err != nil {
		return nil, err
	}
	stored, err := s.st.Results(id)
	if err != nil {
		return nil, err
	}
	byLine := make(map[int]*Result, len(stored))
	for _, r := range stored {
		byLine[r.Line] = r
	}
	var out bytes.Buffer
	for i, l := range lines {
		line := messageResultLine{CustomID: l.CustomID, Result: unrun(b)}
		if r := byLine[i]; r != nil {
			line.Result = messageOutcome(r)
		}
		enc, err := json.Marshal(line)
		if err != nil {
			return nil, err
		}
		out.Write(enc)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// unrun is the result of a request of the ended batch b that never ran:
// canceled or expired with the batch, or errored with the reason a failed
// batch gives.
func unrun(b *Batch) messageResult {
	switch b.Status {
	case StatusCancelled:
		return messageResult{Type: ResultCanceled}
	case StatusExpired:
		return messageResult{Type: ResultExpired}
	}
	reason := b.FailReason
	if reason == "" {
		reason = "the request did not run"
	}
	e := apierr.New(http.StatusInternalServerError, apierr.TypeProvider, reason)
	return messageResult{Type: ResultErrored, Error: apierr.AnthropicBody(e)}
}

// messageOutcome is the result of a request that ran: its message, or its
// error in the Anthropic envelope (an answer in another shape is put in
// that envelope, typed by its status).
func messageOutcome(r *Result) messageResult {
	if r.OK() {
		return messageResult{Type: ResultSucceeded, Message: r.Body}
	}
	f := gjson.GetManyBytes(r.Body, "type", "error.type", "error.message")
	if f[0].Str == "error" && f[1].Str != "" {
		return messageResult{Type: ResultErrored, Error: r.Body}
	}
	status := r.StatusCode
	if status < 400 {
		status = http.StatusBadGateway
	}
	msg := f[2].Str
	if msg == "" {
		msg = "the request failed with status " + strconv.Itoa(status)
	}
	e := apierr.New(status, apierr.TypeForStatus(status), msg)
	return messageResult{Type: ResultErrored, Error: apierr.AnthropicBody(e)}
}
