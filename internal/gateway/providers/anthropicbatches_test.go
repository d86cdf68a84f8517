package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// fakeMessageBatches is an upstream Message Batches API holding one batch.
type fakeMessageBatches struct {
	mu       sync.Mutex
	created  []byte // the create call's body
	headers  http.Header
	status   string
	canceled bool
}

func (f *fakeMessageBatches) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.headers = r.Header.Clone()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/batches":
		f.created, _ = io.ReadAll(r.Body)
		f.status = "in_progress"
		_, _ = io.WriteString(w, `{"id":"msgbatch_up1","type":"message_batch","processing_status":"in_progress"}`)
	case r.URL.Path == "/v1/messages/batches/msgbatch_up1" && r.Method == http.MethodGet:
		cancel := "null"
		if f.canceled {
			cancel = `"2025-01-01T00:00:00Z"`
		}
		counts := `{"processing":3,"succeeded":0,"errored":0,"canceled":0,"expired":0}`
		if f.status == "ended" {
			counts = `{"processing":0,"succeeded":1,"errored":1,"canceled":1,"expired":0}`
		}
		_, _ = io.WriteString(w, `{"id":"msgbatch_up1","processing_status":"`+f.status+`","request_counts":`+counts+`,"cancel_initiated_at":`+cancel+`}`)
	case r.URL.Path == "/v1/messages/batches/msgbatch_up1/cancel" && r.Method == http.MethodPost:
		f.canceled, f.status = true, "canceling"
		_, _ = io.WriteString(w, `{"id":"msgbatch_up1","processing_status":"canceling"}`)
	case r.URL.Path == "/v1/messages/batches/msgbatch_up1/results":
		w.Header().Set("Content-Type", "application/binary")
		_, _ = io.WriteString(w, `{"custom_id":"a","result":{"type":"succeeded","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3,"output_tokens":2}}}}
{"custom_id":"b","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}}}

{"custom_id":"c","result":{"type":"canceled"}}
`)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"no batch for key sk-secret"}}`)
	}
}

// TestAnthropicMessageBatches: the anthropic provider runs a batch of
// /v1/messages lines on its upstream's Message Batches API: the lines go
// up as requests with their params, the state comes back in OpenAI's
// terms, cancel is relayed, and the results come back as output lines
// (canceled requests, which never ran, have none); an error answer keeps
// its status with the key removed.
func TestAnthropicMessageBatches(t *testing.T) {
	up := &fakeMessageBatches{}
	srv := httptest.NewServer(up)
	defer srv.Close()
	pr := mustNew(t, Options{Name: "claude", Type: "anthropic", BaseURL: srv.URL + "/v1", APIKey: "sk-secret", Client: srv.Client()})
	api, ok := pr.(BatchAPI)
	if !ok || !pr.Supports(EndpointBatches) || !api.BatchesOf("/v1/messages") || api.BatchesOf("/v1/chat/completions") {
		t.Fatalf("anthropic provider: BatchAPI %v, batches of /v1/messages only", ok)
	}
	ctx := context.Background()
	if _, err := api.SubmitBatch(ctx, "/v1/chat/completions", []byte(`{}`)); err == nil {
		t.Fatal("a batch of chat lines went to the Message Batches API")
	}
	input := `{"custom_id":"a","method":"POST","url":"/v1/messages","body":{"model":"claude-x","max_tokens":5,"messages":[]}}
{"custom_id":"b","method":"POST","url":"/v1/messages","body":{"model":"claude-x","max_tokens":6}}
{"custom_id":"c","method":"POST","url":"/v1/messages","body":{"model":"claude-x","max_tokens":7}}
`
	id, err := api.SubmitBatch(ctx, "/v1/messages", []byte(input))
	if err != nil || id != "msgbatch_up1" {
		t.Fatalf("submit: %q %v", id, err)
	}
	reqs := gjson.GetBytes(up.created, "requests")
	if n := len(reqs.Array()); n != 3 || reqs.Get("0.custom_id").Str != "a" || reqs.Get("1.params.max_tokens").Int() != 6 ||
		reqs.Get("0.params.messages").Raw != "[]" {
		t.Fatalf("created %s", up.created)
	}
	if up.headers.Get("x-api-key") != "sk-secret" || up.headers.Get("anthropic-version") == "" {
		t.Fatalf("headers %v", up.headers)
	}
	b, err := api.Batch(ctx, id)
	if err != nil || b.Status != "in_progress" || b.Total != 3 || b.OutputFileID != "" {
		t.Fatalf("in progress: %+v %v", b, err)
	}
	if err := api.CancelBatch(ctx, id); err != nil {
		t.Fatal(err)
	}
	if b, _ = api.Batch(ctx, id); b.Status != "cancelling" {
		t.Fatalf("cancelling: %+v", b)
	}
	up.mu.Lock()
	up.status = "ended"
	up.mu.Unlock()
	b, err = api.Batch(ctx, id)
	if err != nil || b.Status != "cancelled" || b.Total != 3 || b.Completed != 1 || b.Failed != 1 || b.OutputFileID != id {
		t.Fatalf("ended: %+v %v", b, err)
	}
	out, err := api.BatchFile(ctx, b.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("output:\n%s", out)
	}
	var first, second struct {
		CustomID string `json:"custom_id"`
		Response struct {
			StatusCode int             `json:"status_code"`
			Body       json.RawMessage `json:"body"`
		} `json:"response"`
	}
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[1]), &second)
	if first.CustomID != "a" || first.Response.StatusCode != 200 || gjson.GetBytes(first.Response.Body, "usage.input_tokens").Int() != 3 {
		t.Fatalf("succeeded line %s", lines[0])
	}
	if second.CustomID != "b" || second.Response.StatusCode != 400 || gjson.GetBytes(second.Response.Body, "error.message").Str != "bad" {
		t.Fatalf("errored line %s", lines[1])
	}
	_, err = api.Batch(ctx, "msgbatch_other")
	var se *BatchStatusError
	if !errors.As(err, &se) || se.Status != 404 || strings.Contains(se.Message, "sk-secret") || !strings.Contains(se.Message, Redacted) {
		t.Fatalf("unknown batch: %v", err)
	}
}
