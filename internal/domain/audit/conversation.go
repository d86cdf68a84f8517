package audit

import (
	"errors"
	"net/url"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Conversation limits.
const (
	// DefaultConversationLimit is the entry count of a conversation that
	// names none.
	DefaultConversationLimit = 40
	// MaxConversationLimit is the largest entry count; larger limits are
	// clamped.
	MaxConversationLimit = 200
)

// Conversation is the session thread around one audit entry.
type Conversation struct {
	// AnchorID is the entry the thread was asked for.
	AnchorID string `json:"anchor_id"`
	// Entries are the thread's entries in time order, bodies included.
	Entries []*Entry `json:"entries"`
	// Truncated reports that the session has more entries than returned.
	Truncated bool `json:"truncated"`
}

// ParseConversationQuery reads log_id (required) and limit (a positive
// integer, default DefaultConversationLimit, clamped to
// MaxConversationLimit). A missing log_id or a bad limit is a 400
// invalid_request_error.
func ParseConversationQuery(v url.Values) (anchorID string, limit int, err error) {
	anchorID = v.Get("log_id")
	if anchorID == "" {
		return "", 0, apierr.InvalidRequest("log_id is required").WithCode(apierr.CodeMissingParameter).WithParam("log_id")
	}
	if limit, err = intParam(v, "limit", DefaultConversationLimit, 1); err != nil {
		return "", 0, err
	}
	return anchorID, min(limit, MaxConversationLimit), nil
}

// Conversation returns the entries of the anchor's session under the
// anchor's user path, in time order: the limit entries ending with the
// anchor, or, when fewer precede it, the first limit entries of the
// session. An anchor without a session is a thread of itself. Limits
// outside 1..MaxConversationLimit are brought inside. An unknown anchor is
// a 404 not_found_error; an empty one a 400.
func (qs *Queries) Conversation(anchorID string, limit int) (Conversation, error) {
	if anchorID == "" {
		return Conversation{}, apierr.InvalidRequest("log_id is required").WithCode(apierr.CodeMissingParameter).WithParam("log_id")
	}
	limit = max(1, min(limit, MaxConversationLimit))
	anchor, err := qs.Get(anchorID)
	if err != nil {
		return Conversation{}, err
	}
	c := Conversation{AnchorID: anchor.ID.String(), Entries: []*Entry{anchor}}
	if anchor.SessionID == "" {
		return c, nil
	}
	ids, err := qs.st.SessionEntryIDs(anchor.UserPath, anchor.SessionID)
	if err != nil {
		return c, err
	}
	at := -1
	for i, id := range ids {
		if id == anchor.ID {
			at = i
			break
		}
	}
	if at < 0 {
		return c, nil
	}
	end := at + 1
	start := max(0, end-limit)
	end = min(len(ids), start+limit)
	c.Truncated = end-start < len(ids)
	c.Entries = make([]*Entry, 0, end-start)
	for _, id := range ids[start:end] {
		if id == anchor.ID {
			c.Entries = append(c.Entries, anchor)
			continue
		}
		e, err := qs.entry(id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted by retention meanwhile
		}
		if err != nil {
			return c, err
		}
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}
