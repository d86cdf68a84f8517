package audit_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// A limit too large for an int is still a positive integer: it is clamped
// to the endpoint's maximum like 999, not refused as not a number.
func TestOversizedLimitIsClamped(t *testing.T) {
	const huge = "99999999999999999999"
	v, _ := url.ParseQuery("log_id=x&limit=" + huge)
	if cq, err := audit.ParseConversationQuery(v); err != nil || cq.Limit != audit.MaxConversationLimit {
		t.Fatalf("conversation: limit %d, %v", cq.Limit, err)
	}
	v, _ = url.ParseQuery("limit=" + huge)
	if sq, err := audit.ParseSessionQuery(v, time.Now()); err != nil || sq.Limit != audit.MaxSessionsLimit {
		t.Fatalf("sessions: limit %d, %v", sq.Limit, err)
	}
	v, _ = url.ParseQuery("limit=" + huge + "&offset=" + huge)
	if q, err := audit.ParseListQuery(v, time.Now()); err != nil || q.Limit != audit.MaxListLimit {
		t.Fatalf("log: limit %d, %v", q.Limit, err)
	}
	// A negative number stays a bad value.
	v, _ = url.ParseQuery("log_id=x&limit=-" + huge)
	if _, err := audit.ParseConversationQuery(v); err == nil {
		t.Fatal("a negative oversized limit was accepted")
	}
}
