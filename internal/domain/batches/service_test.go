package batches_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

// slowExec answers every line after a pause, with usage, counting calls
// and the most lines in flight at once.
type slowExec struct {
	pause           time.Duration
	calls, inFlight atomic.Int32
	maxInFlight     atomic.Int32
	failCustom      string
	// notJSON answers every line with a body that is not JSON.
	notJSON bool
}

func (e *slowExec) Execute(ctx context.Context, userPath, endpoint string, body []byte) batches.Outcome {
	e.calls.Add(1)
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for {
		m := e.maxInFlight.Load()
		if n <= m || e.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-time.After(e.pause):
	case <-ctx.Done():
		return batches.Outcome{}
	}
	if e.failCustom != "" && strings.Contains(string(body), e.failCustom) {
		return batches.Outcome{Status: 400, Body: []byte(`{"error":{"message":"bad","type":"invalid_request_error"}}`)}
	}
	if e.notJSON {
		return batches.Outcome{Status: 502, Body: []byte(`<html>bad gateway</html>`)}
	}
	// A price the provider reported as one figure.
	cost := catalog.Breakdown{Total: 0.001, Currency: "USD", Source: catalog.CostSourceProvider, Unsplit: true}
	return batches.Outcome{Status: 200, Body: []byte(`{"ok":true}`), ProviderName: "demo", ProviderType: "mock", Model: "mock-chat",
		Usage: catalog.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, HasUsage: true, Cost: cost, Priced: true}
}

// usageSink collects usage records.
type usageSink struct {
	mu   sync.Mutex
	recs []*audit.UsageRecord
}

func (s *usageSink) RecordUsage(u *audit.UsageRecord) {
	s.mu.Lock()
	s.recs = append(s.recs, u)
	s.mu.Unlock()
}

func (s *usageSink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

func input(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"custom_id":"c%d","method":"POST","url":"/v1/chat/completions","body":{"model":"mock-chat","messages":[{"role":"user","content":"x%d"}]}}`+"\n", i, i)
	}
	return []byte(b.String())
}

func newService(t *testing.T, exec batches.Executor, sink *usageSink) *batches.Service {
	t.Helper()
	st, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "b.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := batches.New(batches.Options{Storage: boltstore.NewBatches(st), Workers: 3})
	s.Use(batches.Pipeline{Executor: exec, Usage: sink})
	t.Cleanup(func() { s.Close() })
	return s
}

// settled waits, inside a synctest bubble, until every goroutine of the
// bubble (the runner, its lines, the store's writer) is blocked, and
// returns the batch as it then is. Bubble time does not move meanwhile:
// lines pausing on a timer are still in flight.
func settled(t *testing.T, s *batches.Service, c batches.Caller, id string) *batches.Batch {
	t.Helper()
	synctest.Wait()
	b, err := s.Batch(c, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCancelKeepsTheLinesThatRan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pause = 40 * time.Millisecond
		exec := &slowExec{pause: pause}
		sink := &usageSink{}
		s := newService(t, exec, sink)
		c := batches.Caller{UserPath: "/team"}
		f, err := s.Upload(c, "in.jsonl", "batch", input(30))
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := s.Create(c, batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
		if err != nil {
			t.Fatal(err)
		}
		// Three workers: three lines answer every pause. Just short of the
		// second pause, three lines are done and three more in flight.
		time.Sleep(2*pause - time.Nanosecond)
		if mid := settled(t, s, c, b.ID); mid.Completed != 3 || mid.Finished() {
			t.Fatalf("batch after %v: %+v, want 3 lines done", 2*pause-time.Nanosecond, mid)
		}
		if n := exec.inFlight.Load(); n != 3 {
			t.Fatalf("%d lines in flight, want 3", n)
		}
		time.Sleep(time.Nanosecond)
		if mid := settled(t, s, c, b.ID); mid.Completed != 6 {
			t.Fatalf("batch after %v: %+v, want 6 lines done", 2*pause, mid)
		}
		if _, err := s.Cancel(c, b.ID); err != nil {
			t.Fatal(err)
		}
		// The three lines in flight are abandoned, unanswered.
		end := settled(t, s, c, b.ID)
		if end.Status != batches.StatusCancelled || end.Completed != 6 || end.Failed != 0 || end.CancelledAt == 0 || end.OutputFileID == "" {
			t.Fatalf("cancelled batch %+v, want 6 lines done", end)
		}
		_, out, err := s.FileContent(c, end.OutputFileID)
		if err != nil || strings.Count(string(out), "\n") != end.Completed {
			t.Fatalf("output of %d lines: %v\n%s", end.Completed, err, out)
		}
		if sink.count() != end.Completed {
			t.Fatalf("%d usage records for %d answered lines", sink.count(), end.Completed)
		}
		for _, u := range sink.recs {
			// The line's cost, as the executor gave it, with its source.
			if u.TotalCost == nil || *u.TotalCost != 0.001 || u.CostSource != catalog.CostSourceProvider || u.InputCost != nil || u.OutputCost != nil {
				t.Fatalf("usage record cost %v/%v/%v from %q, want total 0.001 from the provider", u.InputCost, u.OutputCost, u.TotalCost, u.CostSource)
			}
		}
		if m := exec.maxInFlight.Load(); m != 3 {
			t.Fatalf("%d lines ran at once with 3 workers", m)
		}
	})
}

func TestFailedLinesGoToTheErrorFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := &usageSink{}
		s := newService(t, &slowExec{failCustom: `"x3"`}, sink)
		c := batches.Caller{UserPath: "/"}
		f, _ := s.Upload(c, "in.jsonl", "batch", input(5))
		b, model, err := s.Create(c, batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
		if err != nil || model != "mock-chat" {
			t.Fatal(err, model)
		}
		// The lines answer at once and a 400 is not retried: no bubble
		// time passes before the batch ends.
		end := settled(t, s, c, b.ID)
		if end.Status != batches.StatusCompleted || end.Completed != 4 || end.Failed != 1 || end.ErrorFileID == "" {
			t.Fatalf("batch %+v", end)
		}
		_, errs, _ := s.FileContent(c, end.ErrorFileID)
		if !strings.Contains(string(errs), `"custom_id":"c3"`) || !strings.Contains(string(errs), `"status_code":400`) {
			t.Fatalf("error file %s", errs)
		}
		if sink.count() != 4 {
			t.Fatalf("%d usage records", sink.count())
		}
	})
}

func TestRefusalsNameTheField(t *testing.T) {
	s := newService(t, &slowExec{}, &usageSink{})
	c := batches.Caller{UserPath: "/a"}
	for _, tc := range []struct {
		purpose, content, param string
	}{
		{"fine-tune", string(input(1)), "purpose"},
		{"batch", `{"custom_id":"a","method":"GET","url":"/v1/chat/completions","body":{"model":"m"}}`, "file"},
		{"batch", `{"custom_id":"a","method":"POST","url":"/v1/audio/speech","body":{"model":"m"}}`, "file"},
		{"batch", `not json`, "file"},
		{"batch", "", "file"},
	} {
		_, err := s.Upload(c, "x.jsonl", tc.purpose, []byte(tc.content))
		var inv *batches.InvalidError
		if !errors.As(err, &inv) || inv.Param != tc.param {
			t.Errorf("upload %q: %v, want a refusal naming %s", tc.content, err, tc.param)
		}
	}
	f, _ := s.Upload(c, "in.jsonl", "batch", input(2))
	for _, tc := range []struct {
		req   batches.CreateRequest
		param string
	}{
		{batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/responses", CompletionWindow: "24h"}, "endpoint"},
		{batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "1h"}, "completion_window"},
		{batches.CreateRequest{InputFileID: "file-nope", Endpoint: "/v1/chat/completions", CompletionWindow: "24h"}, "input_file_id"},
		{batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/embeddings", CompletionWindow: "24h"}, "input_file_id"},
	} {
		_, _, err := s.Create(c, tc.req)
		var inv *batches.InvalidError
		if !errors.As(err, &inv) || inv.Param != tc.param {
			t.Errorf("create %+v: %v, want a refusal naming %s", tc.req, err, tc.param)
		}
	}
	// Another user path sees neither the file nor a batch of it.
	other := batches.Caller{UserPath: "/b"}
	if _, err := s.File(other, f.ID); !errors.Is(err, batches.ErrNotFound) {
		t.Errorf("another path reads the file: %v", err)
	}
	b, _, err := s.Create(c, batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Batch(other, b.ID); !errors.Is(err, batches.ErrNotFound) {
		t.Errorf("another path reads the batch: %v", err)
	}
	if _, err := s.Cancel(other, b.ID); !errors.Is(err, batches.ErrNotFound) {
		t.Errorf("another path cancels the batch: %v", err)
	}
	if _, err := s.Batch(batches.Caller{Admin: true}, b.ID); err != nil {
		t.Errorf("an admin cannot read the batch: %v", err)
	}
}

// TestMissingFieldsAreMissingRequiredParameter: a submission or upload
// that leaves a required field out is refused with code
// missing_required_parameter naming that field, not invalid_value.
func TestMissingFieldsAreMissingRequiredParameter(t *testing.T) {
	s := newService(t, &slowExec{}, &usageSink{})
	c := batches.Caller{UserPath: "/a"}
	f, err := s.Upload(c, "in.jsonl", "batch", input(1))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, param string) {
		t.Helper()
		var inv *batches.InvalidError
		if !errors.As(err, &inv) || inv.Param != param || inv.Code != apierr.CodeMissingParameter {
			t.Errorf("%s: %v (%+v), want %s naming %s", what, err, inv, apierr.CodeMissingParameter, param)
		}
	}
	_, err = s.Upload(c, "in.jsonl", "", input(1))
	check("upload without purpose", err, "purpose")
	for _, tc := range []struct {
		req   batches.CreateRequest
		param string
	}{
		{batches.CreateRequest{InputFileID: f.ID, CompletionWindow: "24h"}, "endpoint"},
		{batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions"}, "completion_window"},
		{batches.CreateRequest{Endpoint: "/v1/chat/completions", CompletionWindow: "24h"}, "input_file_id"},
	} {
		_, _, err := s.Create(c, tc.req)
		check(fmt.Sprintf("create %+v", tc.req), err, tc.param)
	}
}

func TestCancelFinishedBatchIsConflict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, &slowExec{}, &usageSink{})
		c := batches.Caller{UserPath: "/"}
		f, err := s.Upload(c, "in.jsonl", "batch", input(2))
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := s.Create(c, batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
		if err != nil {
			t.Fatal(err)
		}
		if b := settled(t, s, c, b.ID); b.Status != batches.StatusCompleted {
			t.Fatalf("batch of lines answered at once not completed: %+v", b)
		}

		var fin *batches.FinishedError
		if _, err := s.Cancel(c, b.ID); !errors.As(err, &fin) || fin.Status != batches.StatusCompleted {
			t.Fatalf("cancel of a completed batch: %v", err)
		}
		h := &batches.Handler{Service: s}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/batches/"+b.ID+"/cancel", nil))
		if rec.Code != 409 || gjson.Get(rec.Body.String(), "error.type").Str != "invalid_request_error" ||
			gjson.Get(rec.Body.String(), "error.code").Str != "batch_not_cancellable" ||
			!strings.Contains(gjson.Get(rec.Body.String(), "error.message").Str, `"completed"`) {
			t.Fatalf("cancel of a completed batch answered %d %s", rec.Code, rec.Body)
		}
		if after, err := s.Batch(c, b.ID); err != nil || after.Status != batches.StatusCompleted || after.CancellingAt != 0 {
			t.Fatalf("the refused cancel changed the batch: %+v %v", after, err)
		}
	})
}

func TestUploadAndListRefusalsCarryACode(t *testing.T) {
	h := &batches.Handler{Service: newService(t, &slowExec{}, &usageSink{})}
	upload := func(body, contentType string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/v1/files", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	noFile := "--b\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--b--\r\n"
	list := httptest.NewRecorder()
	h.ServeHTTP(list, httptest.NewRequest("GET", "/v1/batches?limit=abc", nil))
	for _, c := range []struct {
		what        string
		rec         *httptest.ResponseRecorder
		code, param string
	}{
		{"upload without a file part", upload(noFile, "multipart/form-data; boundary=b"), apierr.CodeMissingParameter, "file"},
		{"upload cut short", upload("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\nab", "multipart/form-data; boundary=b"), apierr.CodeInvalidMultipart, ""},
		{"list with a limit that is not a number", list, apierr.CodeInvalidValue, "limit"},
	} {
		body := c.rec.Body.String()
		if c.rec.Code != 400 || gjson.Get(body, "error.code").Str != c.code || gjson.Get(body, "error.param").Str != c.param {
			t.Errorf("%s: %d %s, want 400 code %s param %q", c.what, c.rec.Code, body, c.code, c.param)
		}
	}
}

// TestAnswerThatIsNotJSONIsRecordedAsAnError: a line whose answer is not
// JSON keeps the gateway's error object in its place, written by apierr.
func TestAnswerThatIsNotJSONIsRecordedAsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, &slowExec{notJSON: true}, &usageSink{})
		c := batches.Caller{UserPath: "/"}
		f, _ := s.Upload(c, "in.jsonl", "batch", input(1))
		b, _, err := s.Create(c, batches.CreateRequest{InputFileID: f.ID, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
		if err != nil {
			t.Fatal(err)
		}
		// A 502 is retried after growing pauses (7.5s in all), in bubble
		// time; an hour covers them.
		time.Sleep(time.Hour)
		end := settled(t, s, c, b.ID)
		if !end.Finished() || end.Failed != 1 || end.ErrorFileID == "" {
			t.Fatalf("batch %+v, want finished with its line failed", end)
		}
		_, errs, _ := s.FileContent(c, end.ErrorFileID)
		want := `{"error":{"type":"provider_error","message":"the answer was not JSON"}}`
		if !strings.Contains(string(errs), want) {
			t.Fatalf("error file %s, want a body %s", errs, want)
		}
	})
}

// TestFilesListAndDelete: a caller lists only its own files, by purpose,
// newest or oldest first and page by page; deleting one removes it and
// its content, another path's file is not found, and the input of an
// unfinished batch is refused until the batch ends.
func TestFilesListAndDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, &slowExec{pause: time.Second}, &usageSink{})
		a, other := batches.Caller{UserPath: "/a"}, batches.Caller{UserPath: "/b"}
		var ids []string
		for range 3 {
			f, err := s.Upload(a, "in.jsonl", "batch", input(1))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, f.ID)
			time.Sleep(time.Millisecond) // ids order by creation time
		}
		if _, err := s.Upload(other, "theirs.jsonl", "batch", input(1)); err != nil {
			t.Fatal(err)
		}
		list := func(purpose, after string, limit int, asc bool) string {
			l, err := s.Files(a, purpose, after, limit, asc)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range l.Files {
				out = append(out, f.ID)
			}
			return strings.Join(out, ",") + fmt.Sprintf(" more=%v", l.More)
		}
		if got, want := list("", "", 100, false), ids[2]+","+ids[1]+","+ids[0]+" more=false"; got != want {
			t.Fatalf("newest first: %s, want %s", got, want)
		}
		if got, want := list("", "", 2, true), ids[0]+","+ids[1]+" more=true"; got != want {
			t.Fatalf("first page oldest first: %s, want %s", got, want)
		}
		if got, want := list("", ids[1], 2, true), ids[2]+" more=false"; got != want {
			t.Fatalf("second page: %s, want %s", got, want)
		}
		if got := list("batch_output", "", 100, false); got != " more=false" {
			t.Fatalf("batch_output files: %s", got)
		}
		if _, err := s.DeleteFile(other, ids[0]); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("another path's delete: %v", err)
		}
		b, _, err := s.Create(a, batches.CreateRequest{InputFileID: ids[1], Endpoint: "/v1/chat/completions", CompletionWindow: "24h"})
		if err != nil {
			t.Fatal(err)
		}
		var inUse *batches.FileInUseError
		if _, err := s.DeleteFile(a, ids[1]); !errors.As(err, &inUse) || inUse.BatchID != b.ID {
			t.Fatalf("deleting a running batch's input: %v", err)
		}
		if f, err := s.DeleteFile(a, ids[0]); err != nil || f.ID != ids[0] {
			t.Fatalf("delete: %+v %v", f, err)
		}
		if _, _, err := s.FileContent(a, ids[0]); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("content after delete: %v", err)
		}
		time.Sleep(2 * time.Second)
		if end := settled(t, s, a, b.ID); !end.Finished() {
			t.Fatalf("batch %+v", end)
		}
		if _, err := s.DeleteFile(a, ids[1]); err != nil {
			t.Fatalf("deleting a finished batch's input: %v", err)
		}
	})
}
