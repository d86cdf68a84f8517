package batches_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelgate/modelgate/internal/domain/batches"
)

// messageRequests are n message batch requests on mock-chat, custom ids
// m0, m1, ...
func messageRequests(n int) []batches.MessageRequest {
	out := make([]batches.MessageRequest, n)
	for i := range out {
		out[i] = batches.MessageRequest{CustomID: fmt.Sprintf("m%d", i),
			Params: json.RawMessage(fmt.Sprintf(`{"model":"mock-chat","max_tokens":8,"messages":[{"role":"user","content":"x%d"}]}`, i))}
	}
	return out
}

// resultLine is one line of a message batch's results.
type resultLine struct {
	CustomID string `json:"custom_id"`
	Result   struct {
		Type    string          `json:"type"`
		Message json.RawMessage `json:"message"`
		Error   struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"error"`
	} `json:"result"`
}

// readResults parses a message batch's results.
func readResults(t *testing.T, b []byte) []resultLine {
	t.Helper()
	var out []resultLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var l resultLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("result line %s: %v", sc.Bytes(), err)
		}
		out = append(out, l)
	}
	return out
}

// TestMessageBatchRunsAndEnds: a message batch runs its requests as
// /v1/messages lines of its caller, ends with one result per request in
// request order (the refused one errored in Anthropic's envelope),
// records the usage of the answered ones, and is then deleted with its
// results; the OpenAI batches API never sees it, nor another user path.
func TestMessageBatchRunsAndEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := &usageSink{}
		exec := &endpointExec{slowExec: slowExec{failCustom: `"x2"`}}
		s := newService(t, exec, sink)
		c := batches.Caller{UserPath: "/team"}
		b, model, err := s.CreateMessages(c, messageRequests(4))
		if err != nil || model != "mock-chat" || !strings.HasPrefix(b.ID, "msgbatch_") || b.Kind != batches.KindMessages {
			t.Fatalf("created %+v %q %v", b, model, err)
		}
		if _, err := s.MessageResults(c, b.ID); !isNotEnded(err) {
			t.Fatalf("results before the end: %v, want NotEndedError", err)
		}
		synctest.Wait()
		got, err := s.MessageBatch(c, b.ID)
		if err != nil || got.Status != batches.StatusCompleted || got.Completed != 3 || got.Failed != 1 {
			t.Fatalf("ended batch %+v %v", got, err)
		}
		if eps := exec.endpoints(); len(eps) != 4 || eps[0] != "/team /v1/messages" {
			t.Fatalf("lines ran as %v", eps)
		}
		if sink.count() != 3 || sink.recs[0].Endpoint != "/v1/messages" || sink.recs[0].UserPath != "/team" {
			t.Fatalf("%d usage records, first %+v", sink.count(), sink.recs[0])
		}
		out, err := s.MessageResults(c, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		lines := readResults(t, out)
		if len(lines) != 4 {
			t.Fatalf("%d result lines:\n%s", len(lines), out)
		}
		for i, l := range lines {
			want := "succeeded"
			if i == 2 {
				want = "errored"
			}
			if l.CustomID != fmt.Sprintf("m%d", i) || l.Result.Type != want {
				t.Fatalf("result %d: %+v", i, l)
			}
		}
		if e := lines[2].Result.Error; e.Type != "error" || e.Error.Type != "invalid_request_error" || e.Error.Message != "bad" {
			t.Fatalf("errored result %+v", e)
		}
		if string(lines[0].Result.Message) != `{"ok":true}` {
			t.Fatalf("succeeded result %s", lines[0].Result.Message)
		}

		// Each API sees only its own batches, each caller only its own.
		other := batches.Caller{UserPath: "/other"}
		for name, err := range map[string]error{
			"openai get": errOnly(s.Batch(c, b.ID)), "openai cancel": errOnly(s.Cancel(c, b.ID)),
			"other get": errOnly(s.MessageBatch(other, b.ID)), "other cancel": errOnly(s.CancelMessages(other, b.ID)),
			"other delete": errOnly(s.DeleteMessages(other, b.ID)),
		} {
			if !errors.Is(err, batches.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", name, err)
			}
		}
		if _, err := s.MessageResults(other, b.ID); !errors.Is(err, batches.ErrNotFound) {
			t.Errorf("other results: %v", err)
		}
		if list, _, _ := s.List(c, "", 10); len(list) != 0 {
			t.Errorf("the OpenAI listing shows %d message batches", len(list))
		}
		if files, _ := s.Files(c, "", "", 10, false); len(files.Files) != 0 {
			t.Errorf("the files listing shows the batch's requests: %+v", files.Files[0])
		}
		if list, _, _ := s.MessageBatches(other, "", "", 10); len(list) != 0 {
			t.Errorf("another user path lists %d message batches", len(list))
		}
		if _, err := s.CancelMessages(c, b.ID); err == nil {
			t.Errorf("an ended batch was cancelled")
		}

		del, err := s.DeleteMessages(c, b.ID)
		if err != nil || del.ID != b.ID {
			t.Fatalf("delete: %+v %v", del, err)
		}
		if _, err := s.MessageBatch(c, b.ID); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("the deleted batch: %v", err)
		}
		if _, err := s.DeleteMessages(c, b.ID); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("deleting it again: %v", err)
		}
	})
}

// TestMessageBatchCancelAndDelete: a cancelled message batch cannot be
// deleted before it has ended; once ended, its requests that never ran
// are canceled results.
func TestMessageBatchCancelAndDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pause = 40 * time.Millisecond
		s := newService(t, &slowExec{pause: pause}, &usageSink{})
		c := batches.Caller{UserPath: "/"}
		b, _, err := s.CreateMessages(c, messageRequests(9))
		if err != nil {
			t.Fatal(err)
		}
		// Three workers: three requests are answered after one pause.
		time.Sleep(pause + time.Nanosecond)
		synctest.Wait()
		if _, err := s.DeleteMessages(c, b.ID); !isNotEnded(err) {
			t.Fatalf("deleting a running batch: %v, want NotEndedError", err)
		}
		if _, err := s.CancelMessages(c, b.ID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		end, err := s.MessageBatch(c, b.ID)
		if err != nil || end.Status != batches.StatusCancelled || end.Completed != 3 {
			t.Fatalf("cancelled batch %+v %v", end, err)
		}
		out, err := s.MessageResults(c, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, l := range readResults(t, out) {
			kinds[l.Result.Type]++
		}
		if kinds["succeeded"] != 3 || kinds["canceled"] != 6 {
			t.Fatalf("results by type %v", kinds)
		}
		if _, err := s.DeleteMessages(c, b.ID); err != nil {
			t.Fatalf("deleting the ended batch: %v", err)
		}
	})
}

// TestMessageBatchRefusals: bad requests are refused naming the field at
// fault, before anything is stored.
func TestMessageBatchRefusals(t *testing.T) {
	s := newService(t, &slowExec{}, &usageSink{})
	c := batches.Caller{UserPath: "/"}
	req := func(id, params string) batches.MessageRequest {
		return batches.MessageRequest{CustomID: id, Params: json.RawMessage(params)}
	}
	ok := `{"model":"m","max_tokens":1,"messages":[]}`
	for _, tc := range []struct {
		reqs  []batches.MessageRequest
		param string
	}{
		{nil, "requests"},
		{[]batches.MessageRequest{req("", ok)}, "requests.0.custom_id"},
		{[]batches.MessageRequest{req("a", ok), req("has space", ok)}, "requests.1.custom_id"},
		{[]batches.MessageRequest{req(strings.Repeat("x", 65), ok)}, "requests.0.custom_id"},
		{[]batches.MessageRequest{req("a", ok), req("a", ok)}, "requests.1.custom_id"},
		{[]batches.MessageRequest{req("a", `[]`)}, "requests.0.params"},
		{[]batches.MessageRequest{{CustomID: "a"}}, "requests.0.params"},
		{[]batches.MessageRequest{req("a", `{"max_tokens":1}`)}, "requests.0.params.model"},
		{[]batches.MessageRequest{req("a", `{"model":"m","stream":true}`)}, "requests.0.params.stream"},
	} {
		_, _, err := s.CreateMessages(c, tc.reqs)
		var inv *batches.InvalidError
		if !errors.As(err, &inv) || inv.Param != tc.param {
			t.Errorf("%+v: %v, want a refusal of %s", tc.reqs, err, tc.param)
		}
	}
	if list, _, _ := s.MessageBatches(c, "", "", 10); len(list) != 0 {
		t.Fatalf("refused batches were stored: %d", len(list))
	}
}

// TestMessageBatchesPage: the listing pages newest first by after_id
// and, the other way, by before_id.
func TestMessageBatchesPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(t, &slowExec{}, &usageSink{})
		c := batches.Caller{UserPath: "/"}
		var ids []string
		for i := 0; i < 5; i++ {
			b, _, err := s.CreateMessages(c, messageRequests(1))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, b.ID)
			time.Sleep(time.Millisecond) // ids sort by creation time
		}
		synctest.Wait()
		page := func(before, after string, limit int) (string, bool) {
			list, more, err := s.MessageBatches(c, before, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range list {
				got = append(got, b.ID[len(b.ID)-4:])
			}
			return strings.Join(got, ","), more
		}
		short := func(i ...int) string {
			var out []string
			for _, n := range i {
				out = append(out, ids[n][len(ids[n])-4:])
			}
			return strings.Join(out, ",")
		}
		for _, tc := range []struct {
			before, after string
			limit         int
			want          string
			more          bool
		}{
			{"", "", 2, short(4, 3), true},
			{"", ids[3], 2, short(2, 1), true},
			{"", ids[1], 2, short(0), false},
			{ids[0], "", 2, short(2, 1), true},
			{ids[2], "", 2, short(4, 3), false},
			{"", "msgbatch_unknown", 2, "", false},
		} {
			if got, more := page(tc.before, tc.after, tc.limit); got != tc.want || more != tc.more {
				t.Errorf("before %q after %q limit %d: %s more %v, want %s more %v", tc.before, tc.after, tc.limit, got, more, tc.want, tc.more)
			}
		}
	})
}

// endpointExec is slowExec recording the user path and endpoint of every
// line.
type endpointExec struct {
	slowExec
	mu  sync.Mutex
	eps []string
}

func (e *endpointExec) Execute(ctx context.Context, userPath, endpoint string, body []byte) batches.Outcome {
	e.mu.Lock()
	e.eps = append(e.eps, userPath+" "+endpoint)
	e.mu.Unlock()
	return e.slowExec.Execute(ctx, userPath, endpoint, body)
}

func (e *endpointExec) endpoints() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.eps...)
}

func errOnly(_ *batches.Batch, err error) error { return err }

func isNotEnded(err error) bool {
	var ne *batches.NotEndedError
	return errors.As(err, &ne)
}
