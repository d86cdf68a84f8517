package batches

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// MessageRequest is one request of an Anthropic message batch: the
// caller's id for it and its Messages API parameters.
type MessageRequest struct {
	// CustomID is the caller's id for the request, unique in the batch.
	CustomID string `json:"custom_id"`
	// Params is the request's body, as POST /v1/messages takes it.
	Params json.RawMessage `json:"params"`
}

// MaxMessageRequests bounds the requests of one message batch, as
// Anthropic's API bounds them.
const MaxMessageRequests = 100000

// customIDPattern is what Anthropic's API accepts as a custom_id.
var customIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// NotEndedError refuses what only an ended message batch allows: its
// deletion, or reading its results.
type NotEndedError struct {
	// ID is the batch's id.
	ID string
	// Deleting is true for a deletion, false for a results read.
	Deleting bool
}

// Error implements error.
func (e *NotEndedError) Error() string {
	if e.Deleting {
		return "message batch " + e.ID + " has not ended: cancel it and wait for it to end before deleting it"
	}
	return "message batch " + e.ID + " has not ended: its results are available once it has"
}

// CreateMessages accepts an Anthropic message batch of c's, every request
// a Messages call, stores it (its requests in a file of the gateway's
// own) and starts running it, on the provider's own batch API when one
// runs every request's model, else through the gateway's pipeline. It
// returns the batch and the model of its first request.
func (s *Service) CreateMessages(c Caller, reqs []MessageRequest) (*Batch, string, error) {
	if reqs == nil {
		return nil, "", missing("requests")
	}
	if len(reqs) == 0 {
		return nil, "", invalid("requests", "requests must hold at least one request")
	}
	if len(reqs) > MaxMessageRequests {
		return nil, "", invalid("requests", "a message batch holds at most %d requests, not %d", MaxMessageRequests, len(reqs))
	}
	lines := make([]Line, len(reqs))
	seen := make(map[string]bool, len(reqs))
	for i, r := range reqs {
		l, err := messageLine(i, r, seen)
		if err != nil {
			return nil, "", err
		}
		lines[i] = l
	}
	now := time.Now()
	id := newID("msgbatch_", now)
	input := &File{ID: newID("file-", now), UserPath: c.UserPath, CreatedAt: unix(now),
		Filename: id + "_requests.jsonl", Purpose: purposeMessageBatch}
	b := &Batch{
		ID: id, Kind: KindMessages, UserPath: c.UserPath, Endpoint: MessagesEndpoint, InputFileID: input.ID,
		CompletionWindow: "24h", Status: StatusValidating, Total: len(lines),
		CreatedAt: unix(now), ExpiresAt: unix(now.Add(24 * time.Hour)),
	}
	view, err := s.start(b, lines, input)
	if err != nil {
		return nil, "", err
	}
	return view, lines[0].Model, nil
}

// messageLine checks request i of a message batch (its custom_id unique
// among seen, which it adds to) and returns it as a line.
func messageLine(i int, r MessageRequest, seen map[string]bool) (Line, error) {
	at := func(field string) string { return "requests." + strconv.Itoa(i) + "." + field }
	if r.CustomID == "" {
		return Line{}, missing(at("custom_id"))
	}
	if !customIDPattern.MatchString(r.CustomID) {
		return Line{}, invalid(at("custom_id"), "%s must be 1 to 64 letters, digits, _ or -", at("custom_id"))
	}
	if seen[r.CustomID] {
		return Line{}, invalid(at("custom_id"), "custom_id %q is used twice", r.CustomID)
	}
	seen[r.CustomID] = true
	p := gjson.ParseBytes(r.Params)
	if len(r.Params) == 0 || !p.IsObject() {
		return Line{}, invalid(at("params"), "%s must be an object", at("params"))
	}
	f := p.Get("model")
	if f.Type != gjson.String || f.Str == "" {
		return Line{}, missing(at("params.model"))
	}
	if err := catalog.CheckModelID(f.Str); err != nil {
		return Line{}, invalid(at("params.model"), "%s: %v", at("params"), err)
	}
	if p.Get("stream").Bool() {
		return Line{}, invalid(at("params.stream"), "%s: a batch request cannot stream", at("params.stream"))
	}
	return Line{CustomID: r.CustomID, URL: MessagesEndpoint, Model: f.Str, Body: []byte(p.Raw)}, nil
}

// MessageBatch returns c's message batch id, or ErrNotFound.
func (s *Service) MessageBatch(c Caller, id string) (*Batch, error) {
	return s.batchOf(c, id, KindMessages)
}

// MessageBatches returns up to limit of c's message batches, newest
// first, right after the batch afterID or right before the batch
// beforeID (neither: from the newest), and whether more follow that way.
func (s *Service) MessageBatches(c Caller, beforeID, afterID string, limit int) ([]*Batch, bool, error) {
	return s.page(c, KindMessages, beforeID, afterID, limit)
}

// CancelMessages cancels c's message batch id, like Cancel.
func (s *Service) CancelMessages(c Caller, id string) (*Batch, error) {
	return s.cancelOf(c, id, KindMessages)
}

// DeleteMessages deletes c's message batch id, its requests and its
// results. Only an ended batch whose usage is recorded can be deleted;
// any other is refused with a *NotEndedError.
func (s *Service) DeleteMessages(c Caller, id string) (*Batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock() // no run of the batch may start meanwhile
	var b *Batch
	if rn := s.runs[id]; rn != nil {
		rn.mu.Lock()
		cur := *rn.b
		rn.mu.Unlock()
		b = &cur
	} else {
		var err error
		if b, err = s.st.Batch(id); err != nil {
			return nil, err
		}
	}
	if !c.sees(b.UserPath) || b.Kind != KindMessages {
		return nil, ErrNotFound
	}
	if !b.Finished() || !b.UsageRecorded {
		return nil, &NotEndedError{ID: id, Deleting: true}
	}
	if err := s.st.DeleteBatch(id); err != nil {
		return nil, err
	}
	if err := s.st.DeleteFile(b.InputFileID); err != nil && !errors.Is(err, ErrNotFound) {
		s.logf(id, "deleting the requests of a deleted batch: %v", err)
	}
	return b, nil
}
