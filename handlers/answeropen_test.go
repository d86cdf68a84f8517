package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/cache"
	"github.com/modelgate/modelgate/proxy"
	"github.com/modelgate/modelgate/reqinfo"
)

// failingFlusher is a client connection that takes writes until it is
// told to fail, then fails every write and flush.
type failingFlusher struct {
	*httptest.ResponseRecorder
	fail bool
}

func (f *failingFlusher) Write(p []byte) (int, error) {
	if f.fail {
		return 0, errors.New("broken pipe")
	}
	return f.ResponseRecorder.Write(p)
}

func (f *failingFlusher) FlushError() error {
	if f.fail {
		return errors.New("broken pipe")
	}
	return nil
}

// TestAuditWriterSeesLateAndFailedWrites: a flush that fails, or any
// write after the client left, marks the answer failed; flush errors
// reach the caller through http.ResponseController.
func TestAuditWriterSeesLateAndFailedWrites(t *testing.T) {
	f := &failingFlusher{ResponseRecorder: httptest.NewRecorder()}
	aw := &auditWriter{ResponseWriter: f, done: context.Background().Done()}
	rc := http.NewResponseController(aw)
	if _, err := io.WriteString(aw, "data: a\n\n"); err != nil || rc.Flush() != nil || aw.failed {
		t.Fatalf("a healthy write: failed %v", aw.failed)
	}
	f.fail = true
	if rc.Flush() == nil || !aw.failed {
		t.Fatalf("a failing flush: reported nil or not marked (failed %v)", aw.failed)
	}

	ctx, cancel := context.WithCancel(context.Background())
	aw = &auditWriter{ResponseWriter: httptest.NewRecorder(), done: ctx.Done()}
	cancel()
	aw.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(aw, `{"id":"c1"}`)
	if !aw.failed {
		t.Fatal("an answer written after the client left counts as delivered")
	}
}

// TestAuditStageLateAnswerIs499: a handler that writes its whole answer
// only after the client left (a paced answer whose wait the disconnect
// ended) is recorded as the disconnect it is.
func TestAuditStageLateAnswerIs499(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`)).WithContext(ctx)
	_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		cancel()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[]}`)
		return nil
	})
	if e := m.entries[0]; e.StatusCode != StatusClientClosed || e.Data.ErrorCode != CodeClientDisconnected {
		t.Fatalf("late answer recorded as %d %q", e.StatusCode, e.Data.ErrorCode)
	}
}

// TestServeHitStreamOpenUntilItsLastChunk: a replayed stream leaves the
// answer open when the client goes away part way, and whole once every
// chunk is out.
func TestServeHitStreamOpenUntilItsLastChunk(t *testing.T) {
	ans := &cache.Answer{Stream: true, Chunks: [][]byte{[]byte("data: a\n\n"), []byte("data: b\n\n"), []byte("data: [DONE]\n\n")}}
	info := reqinfo.New()
	serveHit(&failingFlusher{ResponseRecorder: httptest.NewRecorder()}, info, proxy.Target{}, ans)
	if info.AnswerOpen {
		t.Fatal("a whole replay left the answer open")
	}
	info = reqinfo.New()
	f := &failingFlusher{ResponseRecorder: httptest.NewRecorder()}
	f.fail = true
	serveHit(f, info, proxy.Target{}, ans)
	if !info.AnswerOpen {
		t.Fatal("a replay the client left is recorded as whole")
	}
}
