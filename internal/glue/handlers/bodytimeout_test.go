package handlers

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// timingOutBody is a request body whose client stalls: its read fails
// with the deadline error net/http gives once read_body_timeout passed,
// and the failed read cancels the request's context, as net/http does.
type timingOutBody struct {
	head   string
	cancel context.CancelFunc
}

func (b *timingOutBody) Read(p []byte) (int, error) {
	if b.head != "" {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	b.cancel()
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
}

func (b *timingOutBody) Close() error { return nil }

// TestAuditStageAnswersStalledBody: a body that does not arrive in time is
// answered 408 request_timeout by the audit stage, which reads it first,
// and recorded as such, not as a client that went away (499).
func TestAuditStageAnswersStalledBody(t *testing.T) {
	m := &memAudit{}
	info := reqinfo.New()
	ctx, cancel := context.WithCancel(reqinfo.With(context.Background(), info))
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, "POST", "/v1/chat/completions", nil)
	r.Body, r.ContentLength = &timingOutBody{head: `{"model":"x","messages":[`, cancel: cancel}, 100000
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	_ = auditRoute(testAuditing(m, 1<<20), chatRoute(t), w, r, func(http.ResponseWriter, *http.Request) error {
		t.Error("the next stage ran for a body that timed out")
		return nil
	})
	if w.Code != 408 || !strings.Contains(w.Body.String(), `"code":"request_timeout"`) {
		t.Fatalf("answer %d %s", w.Code, w.Body)
	}
	if len(m.entries) != 1 || m.entries[0].StatusCode != 408 || m.entries[0].Data.ErrorCode != apierr.CodeRequestTimeout {
		t.Fatalf("entries %+v", m.entries[0])
	}
}
