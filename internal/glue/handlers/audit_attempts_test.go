package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TestAuditAttemptKeepsFailedAnswer: the error answer of a failed
// attempt is recorded on it (response_headers redacted, response_body as
// JSON), the successful attempt keeps null; without bodies or headers
// logging, the attempt keeps neither.
func TestAuditAttemptKeepsFailedAnswer(t *testing.T) {
	for _, logged := range []bool{true, false} {
		m := &memAudit{}
		au := testAuditing(m, 1<<20)
		au.Bodies, au.Headers = logged, logged
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"gpt-4o","messages":[]}`))
		r.Header.Set("Content-Type", "application/json")
		info := reqinfo.New()
		r = r.WithContext(reqinfo.With(r.Context(), info))
		err := auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
			_, _ = io.ReadAll(r.Body)
			h := http.Header{"Content-Type": {"application/json"}, "X-Leak": {"sk-provider-secret-1"}, "X-Request-Id": {"req-42"}}
			info.AddAttempt(reqinfo.Attempt{Provider: "openai", Model: "gpt-4o", StatusCode: 503, StartedAt: time.Now(),
				Err: "overloaded", ResponseHeader: h, ResponseBody: []byte(`{"error":{"message":"overloaded"}}`)})
			info.AddAttempt(reqinfo.Attempt{Provider: "mock", Model: "mock-chat", StatusCode: 200, StartedAt: time.Now()})
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion"}`)
			return nil
		})
		if err != nil || len(m.entries) != 1 || len(m.entries[0].Data.Attempts) != 2 {
			t.Fatalf("err %v, entries %d", err, len(m.entries))
		}
		failed, ok := m.entries[0].Data.Attempts[0], m.entries[0].Data.Attempts[1]
		if ok.ResponseBody != nil || ok.ResponseHeaders != nil {
			t.Errorf("successful attempt: %s %v", ok.ResponseBody, ok.ResponseHeaders)
		}
		if !logged {
			if failed.ResponseBody != nil || failed.ResponseHeaders != nil {
				t.Errorf("not logged, yet recorded: %s %v", failed.ResponseBody, failed.ResponseHeaders)
			}
			continue
		}
		if string(failed.ResponseBody) != `{"error":{"message":"overloaded"}}` {
			t.Errorf("response_body %s", failed.ResponseBody)
		}
		if failed.ResponseHeaders["x-request-id"] != "req-42" || failed.ResponseHeaders["x-leak"] != audit.Redacted {
			t.Errorf("response_headers %v", failed.ResponseHeaders)
		}
	}
}
