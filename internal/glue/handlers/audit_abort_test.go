package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// serveRecovering runs the audit stage around serve for a chat request
// and returns what the stage panicked with, if anything.
func serveRecovering(t *testing.T, m *memAudit, r *http.Request, serve func(http.ResponseWriter, *http.Request) error) (panicked any) {
	t.Helper()
	defer func() { panicked = recover() }()
	_ = auditRoute(testAuditing(m, 1<<20), chatRoute(t), httptest.NewRecorder(), r, serve)
	return nil
}

func chatRequest(info *reqinfo.Info) *http.Request {
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"openai/gpt-4o-mini","stream":true,"messages":[]}`))
	r.Header.Set("Content-Type", "application/json")
	return r.WithContext(reqinfo.With(r.Context(), info))
}

// TestAuditStageRecordsAbortedStream: a stream the upstream broke off,
// which the proxy aborts by panicking with http.ErrAbortHandler after
// recording the failure, leaves exactly one entry with that failure's
// status and code (not the 200 the client got) and the usage the upstream
// reported before the cut, plus its usage record; the panic goes on so
// that net/http still aborts the connection.
func TestAuditStageRecordsAbortedStream(t *testing.T) {
	m := &memAudit{}
	info := reqinfo.New()
	info.UserPath = "/cut"
	p := serveRecovering(t, m, chatRequest(info), func(w http.ResponseWriter, r *http.Request) error {
		info.Stream, info.ProviderName, info.ProviderType, info.ResolvedModel = true, "openai", "openai", "gpt-4o-mini"
		info.AnswerOpen = true
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}\n\n")
		info.SetUsage(catalog.Usage{InputTokens: 7, OutputTokens: 2, TotalTokens: 9})
		e := apierr.ProviderError(http.StatusBadGateway, "openai", "the connection broke").WithCode("upstream_read_failed")
		info.AddAttempt(reqinfo.Attempt{Provider: "openai", Model: "gpt-4o-mini", StatusCode: 200, StartedAt: time.Now(),
			Err: e.Message, ErrType: e.Type, ErrCode: *e.Code})
		apierr.Record(info, e)
		panic(http.ErrAbortHandler)
	})
	if p != http.ErrAbortHandler {
		t.Fatalf("the stage panicked with %v, want http.ErrAbortHandler passed on", p)
	}
	if len(m.entries) != 1 {
		t.Fatalf("%d entries, want 1", len(m.entries))
	}
	e := m.entries[0]
	if e.StatusCode != 502 || e.Data.ErrorCode != "upstream_read_failed" || e.ErrorType != apierr.TypeProvider || !e.Stream {
		t.Errorf("entry status %d code %q type %q stream %v", e.StatusCode, e.Data.ErrorCode, e.ErrorType, e.Stream)
	}
	if e.Usage.TotalTokens != 9 {
		t.Errorf("entry usage %+v", e.Usage)
	}
	if len(m.usage) != 1 || m.usage[0].TotalTokens != 9 || m.usage[0].RequestID != e.ID {
		t.Fatalf("usage records %+v", m.usage)
	}
}

// TestAuditStageRecordsPanics: a panic that recorded no failure leaves
// one entry too, 500 answer_aborted for an abort and 500 internal_error
// for any other panic; without usage reported no usage record is left.
func TestAuditStageRecordsPanics(t *testing.T) {
	for _, c := range []struct {
		with any
		code string
	}{
		{http.ErrAbortHandler, CodeAnswerAborted},
		{"boom", CodeInternalError},
	} {
		m := &memAudit{}
		info := reqinfo.New()
		p := serveRecovering(t, m, chatRequest(info), func(w http.ResponseWriter, r *http.Request) error {
			info.AddAttempt(reqinfo.Attempt{Provider: "openai", StatusCode: 200, StartedAt: time.Now()})
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {}\n\n")
			panic(c.with)
		})
		if p != c.with {
			t.Fatalf("panicked with %v, want %v passed on", p, c.with)
		}
		if len(m.entries) != 1 || m.entries[0].StatusCode != 500 || m.entries[0].Data.ErrorCode != c.code {
			t.Fatalf("%v: entries %+v", c.with, m.entries)
		}
		if len(m.usage) != 0 {
			t.Errorf("%v: a usage record without usage reported: %+v", c.with, m.usage)
		}
	}
}
