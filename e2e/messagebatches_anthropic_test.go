package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// fakeMessageBatchAPI is an upstream Anthropic API with a model listing
// and the Message Batches API: a batch is in progress at its first poll
// and ended at the next, every request answered but those whose
// custom_id starts with "bad", unless a cancel came first, which
// cancels every request.
type fakeMessageBatchAPI struct {
	srv      *httptest.Server
	mu       sync.Mutex
	requests map[string][]gjson.Result
	polls    map[string]int
	canceled map[string]bool
}

func newFakeMessageBatchAPI(t *testing.T) *fakeMessageBatchAPI {
	f := &fakeMessageBatchAPI{requests: map[string][]gjson.Result{}, polls: map[string]int{}, canceled: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMessageBatchAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("x-api-key") != "sk-upstream" {
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"bad key"}}`))
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	rest, _ := strings.CutPrefix(path, "/messages/batches/")
	id, _, _ := strings.Cut(rest, "/")
	switch {
	case path == "/models":
		_, _ = w.Write([]byte(`{"data":[{"type":"model","id":"claude-x"}],"has_more":false}`))
	case path == "/messages/batches" && r.Method == "POST":
		var body json.RawMessage
		_ = json.NewDecoder(r.Body).Decode(&body)
		id := fmt.Sprintf("msgbatch_up_%d", len(f.requests))
		f.requests[id] = gjson.GetBytes(body, "requests").Array()
		_, _ = fmt.Fprintf(w, `{"id":%q,"type":"message_batch","processing_status":"in_progress"}`, id)
	case strings.HasSuffix(path, "/cancel"):
		f.canceled[id] = true
		_, _ = fmt.Fprintf(w, `{"id":%q,"type":"message_batch","processing_status":"canceling"}`, id)
	case strings.HasSuffix(path, "/results"):
		for _, req := range f.requests[id] {
			cid := req.Get("custom_id").Str
			switch {
			case f.canceled[id]:
				_, _ = fmt.Fprintf(w, `{"custom_id":%q,"result":{"type":"canceled"}}`+"\n", cid)
			case strings.HasPrefix(cid, "bad"):
				_, _ = fmt.Fprintf(w, `{"custom_id":%q,"result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"nope"}}}}`+"\n", cid)
			default:
				_, _ = fmt.Fprintf(w, `{"custom_id":%q,"result":{"type":"succeeded","message":{"id":"msg_%s","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"done %s"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5}}}}`+"\n",
					cid, cid, req.Get("params.model").Str, cid)
			}
		}
	case id != "" && f.requests[id] != nil:
		f.polls[id]++
		n := len(f.requests[id])
		status, counts, cancel := "in_progress", fmt.Sprintf(`{"processing":%d,"succeeded":0,"errored":0,"canceled":0,"expired":0}`, n), "null"
		if f.canceled[id] {
			cancel = `"2025-01-01T00:00:00Z"`
			status, counts = "ended", fmt.Sprintf(`{"processing":0,"succeeded":0,"errored":0,"canceled":%d,"expired":0}`, n)
		} else if f.polls[id] > 1 {
			bad := 0
			for _, req := range f.requests[id] {
				if strings.HasPrefix(req.Get("custom_id").Str, "bad") {
					bad++
				}
			}
			status, counts = "ended", fmt.Sprintf(`{"processing":0,"succeeded":%d,"errored":%d,"canceled":0,"expired":0}`, n-bad, bad)
		}
		_, _ = fmt.Fprintf(w, `{"id":%q,"type":"message_batch","processing_status":%q,"request_counts":%s,"cancel_initiated_at":%s}`,
			id, status, counts, cancel)
	default:
		w.WriteHeader(404)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"not_found_error","message":"no such batch"}}`))
	}
}

// TestMessageBatchOnAnthropicUsesItsBatchAPI: a message batch whose
// requests all name a model of an anthropic provider runs on that
// provider's own Message Batches API, with the upstream's model ids; the
// gateway's batch mirrors it and ends with its results (the errored
// request in Anthropic's envelope) and a usage record per answered
// request; a cancel is relayed upstream and ends the batch canceled.
func TestMessageBatchOnAnthropicUsesItsBatchAPI(t *testing.T) {
	clearEnv(t)
	up := newFakeMessageBatchAPI(t)
	g := startGateway(t, mockBlock(providerBlock("cl", "anthropic", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "claude-x")
	c := anthropicClient(g, masterKey)
	ctx := context.Background()

	reqs := messageBatchRequests(3, "cl/claude-x")
	reqs[2].CustomID = "bad-2"
	b, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: reqs})
	if err != nil {
		t.Fatal(err)
	}
	up.mu.Lock()
	sent := up.requests["msgbatch_up_0"]
	up.mu.Unlock()
	if len(sent) != 3 || sent[0].Get("params.model").Str != "claude-x" || sent[1].Get("custom_id").Str != "req-1" ||
		sent[0].Get("params.max_tokens").Int() != 64 || strings.Contains(b.ID, "up") {
		t.Fatalf("gateway batch %s; the upstream got %v", b.ID, sent)
	}
	done := waitMessageBatch(t, c, b.ID, func(b *anthropic.MessageBatch) bool {
		return b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	})
	if n := done.RequestCounts; n.Succeeded != 2 || n.Errored != 1 || n.Canceled+n.Expired+n.Processing != 0 {
		t.Fatalf("ended batch %s", done.RawJSON())
	}
	results := messageBatchResults(t, c, b.ID)
	if r := results["req-1"]; r.Result.Type != "succeeded" || r.Result.AsSucceeded().Message.Content[0].Text != "done req-1" {
		t.Fatalf("succeeded result %+v", r)
	}
	if r := results["bad-2"]; r.Result.Type != "errored" || !strings.Contains(r.Result.AsErrored().Error.RawJSON(), `"invalid_request_error"`) {
		t.Fatalf("errored result %+v", r)
	}
	_, usage := auditRecords(t)
	id, _ := audit.ParseID(strings.TrimPrefix(b.ID, "msgbatch_"))
	if recs := usage[id]; len(recs) != 2 || recs[0].ProviderName != "cl" || recs[0].ProviderType != "anthropic" ||
		recs[0].Endpoint != "/v1/messages" || recs[0].InputTokens != 10 || recs[0].OutputTokens != 5 {
		t.Fatalf("usage records %+v", recs)
	}

	second, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: messageBatchRequests(2, "cl/claude-x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Messages.Batches.Cancel(ctx, second.ID, anthropic.MessageBatchCancelParams{}); err != nil {
		t.Fatal(err)
	}
	up.mu.Lock()
	relayed := up.canceled["msgbatch_up_1"]
	up.mu.Unlock()
	if !relayed {
		t.Fatal("the cancel did not reach the upstream")
	}
	ended := waitMessageBatch(t, c, second.ID, func(b *anthropic.MessageBatch) bool {
		return b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	})
	if ended.RequestCounts.Canceled != 2 || ended.CancelInitiatedAt.IsZero() {
		t.Fatalf("cancelled batch %s", ended.RawJSON())
	}
	for cid, r := range messageBatchResults(t, c, second.ID) {
		if r.Result.Type != "canceled" {
			t.Fatalf("%s: %+v", cid, r)
		}
	}
}
