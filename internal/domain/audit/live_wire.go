package audit

import (
	"encoding/json"
	"errors"
	"fmt"
)

// MaxLiveBatch is the most events one encoded batch may carry;
// DecodeLiveBatch refuses a longer one.
const MaxLiveBatch = 1024

// wireEvent is one live event as it travels between processes: its kind
// and either the preview or the usage record (never a body or header).
type wireEvent struct {
	Kind  string        `json:"k"`
	Audit *AuditPreview `json:"a,omitempty"`
	Usage *UsageRecord  `json:"u,omitempty"`
}

// EncodeLiveBatch encodes audit and usage events compactly (a JSON array)
// for other processes; their sequence numbers are left out, since each
// hub numbers events itself. Other kinds are skipped.
func EncodeLiveBatch(evs []LiveEvent) ([]byte, error) {
	out := make([]wireEvent, 0, len(evs))
	for i := range evs {
		ev := &evs[i]
		switch ev.Kind {
		case EventAudit:
			out = append(out, wireEvent{Kind: EventAudit, Audit: &ev.Audit})
		case EventUsage:
			out = append(out, wireEvent{Kind: EventUsage, Usage: &ev.Usage})
		}
	}
	return json.Marshal(out)
}

// DecodeLiveBatch decodes a batch made by EncodeLiveBatch. Events of an
// unknown kind, or missing their content, are skipped, so a newer sender
// does not break an older receiver; malformed JSON or more than
// MaxLiveBatch events is an error.
func DecodeLiveBatch(b []byte) ([]LiveEvent, error) {
	var in []wireEvent
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("audit: decoding live events: %w", err)
	}
	if len(in) > MaxLiveBatch {
		return nil, errors.New("audit: decoding live events: the batch is too long")
	}
	out := make([]LiveEvent, 0, len(in))
	for _, w := range in {
		switch {
		case w.Kind == EventAudit && w.Audit != nil:
			out = append(out, LiveEvent{Kind: EventAudit, Audit: *w.Audit})
		case w.Kind == EventUsage && w.Usage != nil:
			out = append(out, LiveEvent{Kind: EventUsage, Usage: *w.Usage})
		}
	}
	return out, nil
}
