package e2e

// Anthropic message batches end to end with the official Anthropic SDK's
// own methods (Messages.Batches.New, Get, List, ResultsStreaming, Cancel,
// Delete): run by the gateway on the mock provider (each request
// translated like a live /v1/messages call), interrupted by a restart, on
// the embedded store and on PostgreSQL; cancelled; kept from another
// user path; and run on an anthropic provider's own Message Batches API.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// messageBatchRequests are n batch requests on model, custom ids req-0,
// req-1, ..., asking "line i".
func messageBatchRequests(n int, model string) []anthropic.MessageBatchNewParamsRequest {
	out := make([]anthropic.MessageBatchNewParamsRequest, n)
	for i := range out {
		out[i] = anthropic.MessageBatchNewParamsRequest{CustomID: fmt.Sprintf("req-%d", i),
			Params: anthropic.MessageBatchNewParamsRequestParams{Model: anthropic.Model(model), MaxTokens: 64,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(fmt.Sprintf("line %d", i)))}}}
	}
	return out
}

// waitMessageBatch polls the message batch until cond holds or 30 s pass.
func waitMessageBatch(t *testing.T, c anthropic.Client, id string, cond func(*anthropic.MessageBatch) bool) *anthropic.MessageBatch {
	t.Helper()
	var b *anthropic.MessageBatch
	defer func() {
		if t.Failed() && b != nil {
			t.Logf("message batch %s: %s, counts %+v", id, b.ProcessingStatus, b.RequestCounts)
		}
	}()
	poll(t, 30*time.Second, "message batch "+id, func() bool {
		var err error
		if b, err = c.Messages.Batches.Get(context.Background(), id, anthropic.MessageBatchGetParams{}); err != nil {
			t.Fatalf("get message batch: %v", err)
		}
		return cond(b)
	})
	return b
}

// messageBatchResults reads the results of a message batch with the SDK,
// by custom id.
func messageBatchResults(t *testing.T, c anthropic.Client, id string) map[string]anthropic.MessageBatchIndividualResponse {
	t.Helper()
	stream := c.Messages.Batches.ResultsStreaming(context.Background(), id, anthropic.MessageBatchResultsParams{})
	defer stream.Close()
	out := map[string]anthropic.MessageBatchIndividualResponse{}
	for stream.Next() {
		r := stream.Current()
		if _, dup := out[r.CustomID]; dup {
			t.Fatalf("two results for %s", r.CustomID)
		}
		out[r.CustomID] = r
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("results: %v", err)
	}
	return out
}

// expectAPIError checks that err is the SDK's error for status with an
// Anthropic envelope of type typ.
func expectAPIError(t *testing.T, what string, err error, status int, typ string) {
	t.Helper()
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
		t.Errorf("%s: %v, want status %d", what, err, status)
		return
	}
	if raw := apiErr.RawJSON(); !strings.Contains(raw, `"type":"error"`) || !strings.Contains(raw, `"type":"`+typ+`"`) {
		t.Errorf("%s: body %s, want an Anthropic %s envelope", what, raw, typ)
	}
}

// TestMessageBatchOnMockSurvivesRestart: on the embedded store.
func TestMessageBatchOnMockSurvivesRestart(t *testing.T) {
	clearEnv(t)
	block := "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), "batches.db") +
		"\nprovider demo {\n type mock\n latency 120ms\n}\n"
	messageBatchSurvivesRestart(t, func(int) string { return block })
}

// TestPostgresMessageBatchSurvivesRestart: with `storage postgres`, the
// restart comes up on a fresh bbolt file and resumes from PostgreSQL.
func TestPostgresMessageBatchSurvivesRestart(t *testing.T) {
	clearEnv(t)
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	messageBatchSurvivesRestart(t, func(run int) string {
		return "master_key " + masterKey + "\nstorage " + filepath.Join(dir, fmt.Sprintf("run%d.db", run)) +
			"\nstorage postgres " + dsn + "\nprovider demo {\n type mock\n latency 120ms\n}\n"
	})
}

// messageBatchSurvivesRestart: a key of user path /team submits 16
// requests on the mock provider; the gateway stops while the batch runs,
// the new one (block(1)) resumes it, and the batch ends with 16 succeeded
// results and 16 usage records charged to /team at /v1/messages. Another
// user path's key gets 404 for every call on the batch's id and an empty
// listing; the batch is then deleted.
func messageBatchSurvivesRestart(t *testing.T, block func(run int) string) {
	g := startGateway(t, block(0))
	team := createKey(t, g, `{"name":"team","user_path":"/team"}`)
	other := createKey(t, g, `{"name":"other","user_path":"/other"}`)
	c := anthropicClient(g, team.Secret)
	ctx := context.Background()

	b, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: messageBatchRequests(16, "mock-chat")})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if !strings.HasPrefix(b.ID, "msgbatch_") || b.Type != "message_batch" || b.ProcessingStatus != anthropic.MessageBatchProcessingStatusInProgress ||
		b.RequestCounts.Processing != 16 || b.ResultsURL != "" || !b.EndedAt.IsZero() || b.ExpiresAt.Sub(b.CreatedAt) != 24*time.Hour {
		t.Fatalf("created %s", b.RawJSON())
	}
	mid := waitMessageBatch(t, c, b.ID, func(b *anthropic.MessageBatch) bool { return b.RequestCounts.Succeeded >= 3 })
	if mid.ProcessingStatus != anthropic.MessageBatchProcessingStatusInProgress || mid.RequestCounts.Succeeded+mid.RequestCounts.Processing != 16 {
		t.Fatalf("before the restart: %s", mid.RawJSON())
	}
	// Deleting needs an ended batch.
	_, err = c.Messages.Batches.Delete(ctx, b.ID, anthropic.MessageBatchDeleteParams{})
	expectAPIError(t, "deleting a running batch", err, 409, "invalid_request_error")

	g = restartGateway(t, block(1))
	c = anthropicClient(g, team.Secret)
	after, err := c.Messages.Batches.Get(ctx, b.ID, anthropic.MessageBatchGetParams{})
	if err != nil {
		t.Fatalf("the batch is lost across the restart: %v", err)
	}
	if after.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded {
		t.Fatalf("the batch ended before the restart (%s): the test proves nothing", after.RawJSON())
	}
	t.Logf("restarted with %d of 16 requests done", after.RequestCounts.Succeeded)
	done := waitMessageBatch(t, c, b.ID, func(b *anthropic.MessageBatch) bool {
		return b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	})
	if n := done.RequestCounts; n.Succeeded != 16 || n.Errored+n.Canceled+n.Expired+n.Processing != 0 || done.EndedAt.IsZero() ||
		!strings.HasSuffix(done.ResultsURL, "/v1/messages/batches/"+b.ID+"/results") {
		t.Fatalf("ended batch %s", done.RawJSON())
	}

	results := messageBatchResults(t, c, b.ID)
	for i := 0; i < 16; i++ {
		r, ok := results[fmt.Sprintf("req-%d", i)]
		if !ok || r.Result.Type != "succeeded" {
			t.Fatalf("result %d: %+v", i, r)
		}
		m := r.Result.AsSucceeded().Message
		if len(m.Content) != 1 || m.Content[0].Text != fmt.Sprintf("Echo: line %d", i) || m.Usage.OutputTokens == 0 || m.Role != "assistant" {
			t.Fatalf("result %d: %s", i, m.RawJSON())
		}
	}
	if len(results) != 16 {
		t.Fatalf("%d results, want 16", len(results))
	}

	// One usage record per request, charged to /team.
	entries, usage := auditRecords(t)
	if calls := auditedAsBatch(t, entries, "/v1/messages/batches"); calls < 3 {
		t.Errorf("%d message batch calls audited, want at least 3", calls)
	}
	id, err := audit.ParseID(strings.TrimPrefix(b.ID, "msgbatch_"))
	if err != nil {
		t.Fatal(err)
	}
	if recs := usage[id]; len(recs) != 16 {
		t.Fatalf("%d usage records for the batch, want 16", len(recs))
	}
	for _, u := range usage[id] {
		if u.Endpoint != "/v1/messages" || u.ProviderName != "demo" || u.UserPath != "/team" || u.TotalTokens == 0 {
			t.Fatalf("usage record %+v", u)
		}
	}

	// Another user path sees nothing of it.
	oc := anthropicClient(g, other.Secret)
	_, err = oc.Messages.Batches.Get(ctx, b.ID, anthropic.MessageBatchGetParams{})
	expectAPIError(t, "another user path's get", err, 404, "not_found_error")
	_, err = oc.Messages.Batches.Cancel(ctx, b.ID, anthropic.MessageBatchCancelParams{})
	expectAPIError(t, "another user path's cancel", err, 404, "not_found_error")
	_, err = oc.Messages.Batches.Delete(ctx, b.ID, anthropic.MessageBatchDeleteParams{})
	expectAPIError(t, "another user path's delete", err, 404, "not_found_error")
	stream := oc.Messages.Batches.ResultsStreaming(ctx, b.ID, anthropic.MessageBatchResultsParams{})
	for stream.Next() {
		t.Errorf("another user path reads a result: %+v", stream.Current())
	}
	expectAPIError(t, "another user path's results", stream.Err(), 404, "not_found_error")
	stream.Close()
	if page, err := oc.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{}); err != nil || len(page.Data) != 0 {
		t.Errorf("another user path lists %v %+v", err, page)
	}
	// Neither is it an OpenAI batch.
	if res := request(t, "GET", g.URL+"/v1/batches/"+b.ID, "", bearer(team.Secret)...); res.Status != 404 {
		t.Errorf("GET /v1/batches/%s: %d %s", b.ID, res.Status, res.Body)
	}

	page, err := c.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{})
	if err != nil || len(page.Data) != 1 || page.Data[0].ID != b.ID || page.HasMore || page.FirstID != b.ID || page.LastID != b.ID {
		t.Fatalf("list: %v %+v", err, page)
	}
	_, err = c.Messages.Batches.Cancel(ctx, b.ID, anthropic.MessageBatchCancelParams{})
	expectAPIError(t, "cancelling an ended batch", err, 409, "invalid_request_error")
	del, err := c.Messages.Batches.Delete(ctx, b.ID, anthropic.MessageBatchDeleteParams{})
	if err != nil || del.ID != b.ID || del.Type != "message_batch_deleted" {
		t.Fatalf("delete: %v %+v", err, del)
	}
	_, err = c.Messages.Batches.Get(ctx, b.ID, anthropic.MessageBatchGetParams{})
	expectAPIError(t, "the deleted batch", err, 404, "not_found_error")
	// The usage stays recorded.
	if _, usage = auditRecords(t); len(usage[id]) != 16 {
		t.Fatalf("after the deletion: %d usage records, want 16", len(usage[id]))
	}
}

// TestMessageBatchCancelAndRefusals: a cancelled message batch ends with
// the requests that ran succeeded and the others canceled; refusals come
// in Anthropic's envelope; the list pages both ways.
func TestMessageBatchCancelAndRefusals(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n latency 150ms\n}\n")
	c := anthropicClient(g, masterKey)
	ctx := context.Background()

	_, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: []anthropic.MessageBatchNewParamsRequest{}})
	expectAPIError(t, "an empty batch", err, 400, "invalid_request_error")
	bad := messageBatchRequests(2, "mock-chat")
	bad[1].CustomID = bad[0].CustomID
	_, err = c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: bad})
	expectAPIError(t, "a custom_id used twice", err, 400, "invalid_request_error")
	res := request(t, "POST", g.URL+"/v1/messages/batches", `{"requests":[{"custom_id":"a","params":{"model":"mock-chat","max_tokens":5,"stream":true,"messages":[]}}]}`,
		bearer(masterKey)...)
	if res.Status != 400 || !strings.Contains(string(res.Body), `"type":"invalid_request_error"`) || !strings.Contains(string(res.Body), "requests.0.params.stream") {
		t.Errorf("a streaming request: %d %s", res.Status, res.Body)
	}

	var ids []string
	for i := 0; i < 3; i++ {
		b, err := c.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: messageBatchRequests(10, "mock-chat")})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
		time.Sleep(2 * time.Millisecond) // ids sort by creation time
	}
	for _, id := range ids {
		b, err := c.Messages.Batches.Cancel(ctx, id, anthropic.MessageBatchCancelParams{})
		if err != nil || b.CancelInitiatedAt.IsZero() || (b.ProcessingStatus != anthropic.MessageBatchProcessingStatusCanceling &&
			b.ProcessingStatus != anthropic.MessageBatchProcessingStatusEnded) {
			t.Fatalf("cancel %s: %v %s", id, err, b.RawJSON())
		}
	}
	done := waitMessageBatch(t, c, ids[0], func(b *anthropic.MessageBatch) bool {
		return b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	})
	n := done.RequestCounts
	if n.Canceled == 0 || n.Succeeded+n.Canceled != 10 || n.Errored+n.Processing+n.Expired != 0 {
		t.Fatalf("cancelled batch %s", done.RawJSON())
	}
	kinds := map[string]int64{}
	for _, r := range messageBatchResults(t, c, ids[0]) {
		kinds[string(r.Result.Type)]++
	}
	if kinds["canceled"] != n.Canceled || kinds["succeeded"] != n.Succeeded {
		t.Fatalf("results by type %v, counts %+v", kinds, n)
	}

	// Newest first; after_id pages on, before_id pages back.
	page, err := c.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{Limit: anthropic.Int(2)})
	if err != nil || len(page.Data) != 2 || page.Data[0].ID != ids[2] || page.Data[1].ID != ids[1] || !page.HasMore {
		t.Fatalf("first page: %v %+v", err, page)
	}
	next, err := page.GetNextPage()
	if err != nil || next == nil || len(next.Data) != 1 || next.Data[0].ID != ids[0] || next.HasMore {
		t.Fatalf("next page: %v %+v", err, next)
	}
	back, err := c.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{BeforeID: anthropic.String(ids[0])})
	if err != nil || len(back.Data) != 2 || back.Data[0].ID != ids[2] || back.HasMore {
		t.Fatalf("before_id page: %v %+v", err, back)
	}
	_, err = c.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{Limit: anthropic.Int(1001)})
	expectAPIError(t, "limit 1001", err, 400, "invalid_request_error")
	_, err = c.Messages.Batches.Get(ctx, "msgbatch_nope", anthropic.MessageBatchGetParams{})
	expectAPIError(t, "an unknown id", err, 404, "not_found_error")
}
