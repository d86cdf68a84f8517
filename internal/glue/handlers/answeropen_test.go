package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// failingFlusher is a client connection that takes writes until it is
// told to fail, or until it has taken one holding leaveOn (when set) and
// leaves with it; from then on it fails every write and flush.
type failingFlusher struct {
	*httptest.ResponseRecorder
	fail    bool
	leaveOn string
}

func (f *failingFlusher) Write(p []byte) (int, error) {
	if f.fail {
		return 0, errors.New("broken pipe")
	}
	if f.leaveOn != "" && strings.Contains(string(p), f.leaveOn) {
		f.fail = true
	}
	return f.ResponseRecorder.Write(p)
}

func (f *failingFlusher) FlushError() error {
	if f.fail {
		return errors.New("broken pipe")
	}
	return nil
}

// TestAuditWriterSeesLateAndFailedWrites: a write that fails, or any
// write begun after the client left, marks the answer failed; a flush
// does only while the answer is open (once it is whole, a client may have
// left on what the write before the flush sent), and its error reaches
// the caller through http.ResponseController either way.
func TestAuditWriterSeesLateAndFailedWrites(t *testing.T) {
	f := &failingFlusher{ResponseRecorder: httptest.NewRecorder()}
	aw := &auditWriter{ResponseWriter: f, done: context.Background().Done()}
	rc := http.NewResponseController(aw)
	if _, err := io.WriteString(aw, "data: a\n\n"); err != nil || rc.Flush() != nil || aw.failed {
		t.Fatalf("a healthy write: failed %v", aw.failed)
	}
	f.fail = true
	if rc.Flush() == nil || aw.failed {
		t.Fatalf("a failing flush of a whole answer: reported nil or marked (failed %v)", aw.failed)
	}
	if _, err := io.WriteString(aw, "data: b\n\n"); err == nil || !aw.failed {
		t.Fatalf("a failing write: reported nil or not marked (failed %v)", aw.failed)
	}
	// While the answer is open a failing flush marks it, as does a flush
	// after the client left.
	info := reqinfo.New()
	info.AnswerOpen = true
	aw = &auditWriter{ResponseWriter: f, done: context.Background().Done(), info: info}
	if http.NewResponseController(aw).Flush() == nil || !aw.failed {
		t.Fatalf("a failing flush of an open answer: reported nil or not marked (failed %v)", aw.failed)
	}
	gone, leave := context.WithCancel(context.Background())
	leave()
	aw = &auditWriter{ResponseWriter: httptest.NewRecorder(), done: gone.Done(), info: info}
	if _ = http.NewResponseController(aw).Flush(); !aw.failed {
		t.Fatal("a flush of an open answer after the client left is not marked")
	}

	ctx, cancel := context.WithCancel(context.Background())
	aw = &auditWriter{ResponseWriter: httptest.NewRecorder(), done: ctx.Done()}
	aw.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(aw, "data: [DONE]\n\n")
	cancel()
	if http.NewResponseController(aw).Flush(); aw.failed {
		t.Fatal("a flush after the client left on the last write marks the answer failed")
	}
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
	serveHit(&failingFlusher{ResponseRecorder: httptest.NewRecorder()}, info, &reqinfo.Plan{}, ans)
	if info.AnswerOpen {
		t.Fatal("a whole replay left the answer open")
	}
	info = reqinfo.New()
	f := &failingFlusher{ResponseRecorder: httptest.NewRecorder()}
	f.fail = true
	serveHit(f, info, &reqinfo.Plan{}, ans)
	if !info.AnswerOpen {
		t.Fatal("a replay the client left is recorded as whole")
	}
	// A client gone when the small last chunk is flushed did not get it:
	// that flush is what sends it.
	info = reqinfo.New()
	l := &failingFlusher{ResponseRecorder: httptest.NewRecorder(), leaveOn: "[DONE]"}
	serveHit(l, info, &reqinfo.Plan{}, ans)
	if !l.fail || !info.AnswerOpen {
		t.Fatalf("a replay whose small last chunk was never flushed: open %v (client left %v)", info.AnswerOpen, l.fail)
	}
	// A last chunk that its write sends may be all a client waits for
	// before it leaves, ahead of the flush: the replay is whole.
	big := &cache.Answer{Stream: true, Chunks: [][]byte{[]byte("data: a\n\n"),
		[]byte("data: {\"pad\":\"" + strings.Repeat("x", 8<<10) + "\"}\n\ndata: [DONE]\n\n")}}
	info = reqinfo.New()
	l = &failingFlusher{ResponseRecorder: httptest.NewRecorder(), leaveOn: "[DONE]"}
	serveHit(l, info, &reqinfo.Plan{}, big)
	if !l.fail || info.AnswerOpen {
		t.Fatalf("a replay the client left on its large last chunk: open %v (client left %v)", info.AnswerOpen, l.fail)
	}
}

// TestKeepableWhenTheClientLeftWithTheWholeAnswer: a stream is stored
// when its client left once it had the closing event, even though the
// flush after it failed; not when the client left part way.
func TestKeepableWhenTheClientLeftWithTheWholeAnswer(t *testing.T) {
	relay := func(leaveOn string) (*cacheWriter, *reqinfo.Info) {
		info := reqinfo.New()
		info.ProviderName = "up"
		info.AddAttempt(reqinfo.Attempt{Provider: "up", StatusCode: http.StatusOK})
		cw := &cacheWriter{ResponseWriter: &failingFlusher{ResponseRecorder: httptest.NewRecorder(), leaveOn: leaveOn}, max: 1 << 20}
		rc := http.NewResponseController(cw)
		info.AnswerOpen = true
		cw.WriteHeader(http.StatusOK)
		for _, ev := range []string{"data: a\n\n", "data: b\n\n", "data: [DONE]\n\n"} {
			if _, err := io.WriteString(cw, ev); err != nil {
				return cw, info
			}
			if ev == "data: [DONE]\n\n" {
				info.AnswerOpen = false
			}
			if rc.Flush() != nil {
				return cw, info
			}
		}
		return cw, info
	}
	cw, info := relay("[DONE]")
	if ans := keepable(cw, info, true); ans == nil || len(ans.Chunks) != 3 {
		t.Fatalf("a stream whose client left on its closing event: kept %+v", ans)
	}
	cw, info = relay("data: a")
	if ans := keepable(cw, info, true); ans != nil {
		t.Fatalf("a stream whose client left part way was kept: %+v", ans)
	}
}
