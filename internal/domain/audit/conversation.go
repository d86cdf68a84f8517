package audit

import (
	"errors"
	"net/url"
	"slices"

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
	// Earlier reports that entries of the session precede the first one
	// returned: asking again with before set to its id reads them.
	Earlier bool `json:"earlier"`
}

// ConversationQuery selects one page of the session thread around an
// entry.
type ConversationQuery struct {
	// AnchorID is the entry whose session is read.
	AnchorID string
	// Limit bounds the entries returned (1..MaxConversationLimit).
	Limit int
	// Before, when set, is the id of an entry of the session: the page
	// ends with the entry just before it, to read earlier turns.
	Before string
	// MaxBytes, when above 0, bounds the request and response bodies'
	// total size of the page: entries are added, newest first, while
	// their bodies fit (the first one always does).
	MaxBytes int
}

// ParseConversationQuery reads log_id (required), limit (a positive
// integer, default DefaultConversationLimit, clamped to
// MaxConversationLimit), before (an entry id) and max_bytes (a positive
// integer). A missing log_id or a bad number is a 400
// invalid_request_error.
func ParseConversationQuery(v url.Values) (ConversationQuery, error) {
	q := ConversationQuery{AnchorID: v.Get("log_id"), Before: v.Get("before")}
	if q.AnchorID == "" {
		return q, apierr.InvalidRequest("log_id is required").WithCode(apierr.CodeMissingParameter).WithParam("log_id")
	}
	var err error
	if q.Limit, err = intParam(v, "limit", DefaultConversationLimit, 1); err != nil {
		return q, err
	}
	q.Limit = min(q.Limit, MaxConversationLimit)
	if q.MaxBytes, err = intParam(v, "max_bytes", 0, 1); err != nil {
		return q, err
	}
	return q, nil
}

// Conversation returns the entries of the anchor's session under the
// anchor's user path, in time order: the limit entries ending with the
// anchor, or, when fewer precede it, the first limit entries of the
// session. See ConversationPage.
func (qs *Queries) Conversation(anchorID string, limit int) (Conversation, error) {
	return qs.ConversationPage(ConversationQuery{AnchorID: anchorID, Limit: limit})
}

// ConversationPage returns one page of the anchor's session under the
// anchor's user path, in time order: the entries ending with the anchor
// (or, with q.Before, with the entry before that one), as many as q.Limit
// and q.MaxBytes allow; without q.Before, when fewer precede the anchor,
// entries after it fill the page. An anchor without a session is a thread
// of itself. Limits outside 1..MaxConversationLimit are brought inside. An
// unknown anchor is a 404 not_found_error; an empty one, or a q.Before
// that is not an entry of the session, a 400.
func (qs *Queries) ConversationPage(q ConversationQuery) (Conversation, error) {
	if q.AnchorID == "" {
		return Conversation{}, apierr.InvalidRequest("log_id is required").WithCode(apierr.CodeMissingParameter).WithParam("log_id")
	}
	limit := max(1, min(q.Limit, MaxConversationLimit))
	anchor, err := qs.Get(q.AnchorID)
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
	end := slices.Index(ids, anchor.ID) + 1
	if end == 0 {
		return c, nil
	}
	if q.Before != "" {
		end = slices.IndexFunc(ids, func(id ID) bool { return id.String() == q.Before })
		if end < 0 {
			return c, badParam("before", "before is not an entry of this session")
		}
	}
	c.Entries = []*Entry{}
	size := 0
	// fits loads the entry of id and reports whether it joins the page;
	// a deleted entry (retention, meanwhile) is skipped.
	fits := func(id ID) (*Entry, bool, error) {
		e := anchor
		if id != anchor.ID {
			var err error
			if e, err = qs.entry(id); errors.Is(err, ErrNotFound) {
				return nil, true, nil
			} else if err != nil {
				return nil, false, err
			}
		}
		n := bodySize(e)
		if q.MaxBytes > 0 && len(c.Entries) > 0 && size+n > q.MaxBytes {
			return nil, false, nil
		}
		size += n
		return e, true, nil
	}
	start := end
	for start > 0 && end-start < limit {
		e, ok, err := fits(ids[start-1])
		if err != nil {
			return c, err
		}
		if !ok {
			break
		}
		start--
		if e != nil {
			c.Entries = append(c.Entries, e)
		}
	}
	slices.Reverse(c.Entries)
	for q.Before == "" && end < len(ids) && end-start < limit {
		e, ok, err := fits(ids[end])
		if err != nil {
			return c, err
		}
		if !ok {
			break
		}
		end++
		if e != nil {
			c.Entries = append(c.Entries, e)
		}
	}
	c.Earlier = start > 0
	c.Truncated = start > 0 || end < len(ids)
	return c, nil
}

// bodySize is the size of an entry's request and response bodies.
func bodySize(e *Entry) int {
	if e.Data == nil {
		return 0
	}
	return len(e.Data.RequestBody) + len(e.Data.ResponseBody)
}
