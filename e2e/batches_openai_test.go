package e2e

// Batches on a provider with its own batch API: the gateway uploads the
// lines (with the provider's model ids) and creates the provider's batch,
// answers with its own ids, mirrors the provider's progress, and records
// usage and cost per line from the provider's result files.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// fakeBatchAPI is an OpenAI-like files and batches API. A batch
// completes at its second poll: lines whose custom_id starts with "bad"
// fail with 400, the others are answered with usage 10+5.
type fakeBatchAPI struct {
	srv       *httptest.Server
	mu        sync.Mutex
	files     map[string][]byte
	batches   map[string]map[string]any
	polls     map[string]int
	cancelled []string
}

func newFakeBatchAPI(t *testing.T) *fakeBatchAPI {
	f := &fakeBatchAPI{files: map[string][]byte{}, batches: map[string]map[string]any{}, polls: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeBatchAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer sk-upstream" {
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"error":{"message":"bad key"}}`))
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case path == "/models":
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","owned_by":"openai"}]}`))
	case path == "/files" && r.Method == "POST":
		file, _, err := r.FormFile("file")
		if err != nil || r.FormValue("purpose") != "batch" {
			w.WriteHeader(400)
			return
		}
		b, _ := io.ReadAll(file)
		id := fmt.Sprintf("file-up-%d", len(f.files))
		f.files[id] = b
		_, _ = fmt.Fprintf(w, `{"id":%q,"object":"file","purpose":"batch","bytes":%d}`, id, len(b))
	case strings.HasPrefix(path, "/files/") && strings.HasSuffix(path, "/content"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/files/"), "/content")
		_, _ = w.Write(f.files[id])
	case path == "/batches" && r.Method == "POST":
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		id := fmt.Sprintf("batch_up_%d", len(f.batches))
		b := map[string]any{"id": id, "object": "batch", "status": "validating", "endpoint": req["endpoint"],
			"input_file_id": req["input_file_id"], "completion_window": req["completion_window"]}
		f.batches[id] = b
		_ = json.NewEncoder(w).Encode(b)
	case strings.HasPrefix(path, "/batches/") && strings.HasSuffix(path, "/cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/batches/"), "/cancel")
		f.cancelled = append(f.cancelled, id)
		f.batches[id]["status"] = "cancelling"
		_ = json.NewEncoder(w).Encode(f.batches[id])
	case strings.HasPrefix(path, "/batches/"):
		id := strings.TrimPrefix(path, "/batches/")
		b := f.batches[id]
		f.polls[id]++
		switch {
		case b["status"] == "cancelling":
			b["status"] = "cancelled"
		case b["status"] == "cancelled":
		case f.polls[id] == 1:
			b["status"] = "in_progress"
		default:
			f.complete(b)
		}
		_ = json.NewEncoder(w).Encode(b)
	default:
		w.WriteHeader(404)
	}
}

// complete answers every line of batch b and marks it completed.
func (f *fakeBatchAPI) complete(b map[string]any) {
	if b["status"] == "completed" {
		return
	}
	var out, bad strings.Builder
	ok, failed := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(f.files[b["input_file_id"].(string)])), "\n") {
		id := gjson.Get(line, "custom_id").Str
		if strings.HasPrefix(id, "bad") {
			failed++
			fmt.Fprintf(&bad, `{"id":"br_%s","custom_id":%q,"response":{"status_code":400,"request_id":"r","body":{"error":{"message":"nope","type":"invalid_request_error"}}},"error":null}`+"\n", id, id)
			continue
		}
		ok++
		model := gjson.Get(line, "body.model").Str
		fmt.Fprintf(&out, `{"id":"br_%s","custom_id":%q,"response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-%s","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"done %s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}},"error":null}`+"\n", id, id, id, model, id)
	}
	f.files["file-out-"+b["id"].(string)] = []byte(out.String())
	b["output_file_id"] = "file-out-" + b["id"].(string)
	if failed > 0 {
		f.files["file-err-"+b["id"].(string)] = []byte(bad.String())
		b["error_file_id"] = "file-err-" + b["id"].(string)
	}
	b["status"] = "completed"
	b["request_counts"] = map[string]int{"total": ok + failed, "completed": ok, "failed": failed}
}

func TestBatchOnOpenAIUsesItsBatchAPI(t *testing.T) {
	clearEnv(t)
	up := newFakeBatchAPI(t)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", "sk-upstream", up.srv.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-4o-mini")
	c := openaiClient(g, masterKey)
	ctx := context.Background()

	input := `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"oa/gpt-4o-mini","messages":[{"role":"user","content":"1"}]}}
{"custom_id":"b","method":"POST","url":"/v1/chat/completions","body":{"model":"oa/gpt-4o-mini","messages":[{"role":"user","content":"2"}]}}
{"custom_id":"bad-c","method":"POST","url":"/v1/chat/completions","body":{"model":"oa/gpt-4o-mini","messages":[{"role":"user","content":"3"}]}}
`
	f := uploadBatchFile(t, c, []byte(input))
	b, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID,
		Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(err)
	}
	up.mu.Lock()
	upInput := string(up.files["file-up-0"])
	_, upBatch := up.batches["batch_up_0"]
	up.mu.Unlock()
	if !upBatch || strings.Contains(b.ID, "up") || !strings.HasPrefix(b.ID, "batch_") {
		t.Fatalf("gateway batch %s, upstream batch created: %v", b.ID, upBatch)
	}
	if strings.Count(upInput, `"model":"gpt-4o-mini"`) != 3 || strings.Contains(upInput, "oa/") {
		t.Fatalf("the upstream got %s", upInput)
	}

	done := waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.Status == openai.BatchStatusCompleted })
	if done.RequestCounts.Completed != 2 || done.RequestCounts.Failed != 1 || done.OutputFileID == "" || done.ErrorFileID == "" ||
		strings.Contains(done.OutputFileID, "up") {
		t.Fatalf("finished batch %+v", done)
	}
	resp, err := c.Files.Content(ctx, done.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Count(string(out), "\n") != 2 || !strings.Contains(string(out), `"content":"done a"`) {
		t.Fatalf("output %s", out)
	}
	resp, err = c.Files.Content(ctx, done.ErrorFileID)
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(bad), `"custom_id":"bad-c"`) || !strings.Contains(string(bad), `"status_code":400`) {
		t.Fatalf("error file %s", bad)
	}
	_, usage := auditRecords(t)
	id, _ := audit.ParseID(strings.TrimPrefix(b.ID, "batch_"))
	if recs := usage[id]; len(recs) != 2 {
		t.Fatalf("%d usage records, want 2", len(recs))
	} else {
		for _, u := range recs {
			if u.ProviderName != "oa" || u.ProviderType != "openai" || u.Model != "gpt-4o-mini" || u.TotalTokens != 15 || u.TotalCost == nil || math.Abs(*u.TotalCost-(10*0.075+5*0.3)/1e6) > 1e-12 {
				t.Fatalf("usage record %+v", u)
			}
		}
	}

	// Cancelling asks the provider; the batch ends cancelled when it says so.
	b2, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID,
		Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := c.Batches.Cancel(ctx, b2.ID)
	if err != nil || cb.Status != openai.BatchStatusCancelling {
		t.Fatalf("cancel: %v %+v", err, cb)
	}
	up.mu.Lock()
	cancelled := strings.Join(up.cancelled, ",")
	up.mu.Unlock()
	if cancelled != "batch_up_1" {
		t.Fatalf("the upstream cancelled %q", cancelled)
	}
	waitBatch(t, c, b2.ID, func(b *openai.Batch) bool { return b.Status == openai.BatchStatusCancelled })
}

// TestBatchSubmitUpstreamRefusal: when the provider's batch API refuses a
// submission, the client gets the provider's status (a refusal is not a
// gateway failure that SDKs would retry) and never the provider's key,
// whole or in part.
func TestBatchSubmitUpstreamRefusal(t *testing.T) {
	clearEnv(t)
	const key = "sk-upstream-0123456789abcdef"
	var mu sync.Mutex
	status, answer := 0, ""
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","owned_by":"openai"}]}`))
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if status == 429 {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(up.Close)
	g := startGateway(t, mockBlock(providerBlock("oa", "openai", key, up.URL+"/v1")))
	waitListed(t, g, masterKey, "gpt-4o-mini")
	c := openaiClient(g, masterKey)
	f := uploadBatchFile(t, c, []byte(`{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"oa/gpt-4o-mini","messages":[{"role":"user","content":"1"}]}}`+"\n"))
	create := `{"input_file_id":"` + f.ID + `","endpoint":"/v1/chat/completions","completion_window":"24h"}`

	for _, tc := range []struct {
		status         int
		answer         string
		typ, code      string
		wantStatus     int
		message, retry string
	}{
		{401, `{"error":{"message":"Incorrect API key provided: sk-upstr********cdef.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			"authentication_error", "upstream_auth_failed", 401, "refused the gateway's credentials", ""},
		{400, `{"error":{"message":"bad file for key ` + key + `","type":"invalid_request_error","code":"invalid_file"}}`,
			"invalid_request_error", "invalid_file", 400, "bad file for key [redacted]", ""},
		{429, `{"error":{"message":"Enqueued token limit reached","type":"invalid_request_error","code":"token_limit_exceeded"}}`,
			"rate_limit_error", "token_limit_exceeded", 429, "Enqueued token limit reached", "7"},
		{503, `<html>down</html>`, "provider_error", "", 503, "Service Unavailable", ""},
	} {
		mu.Lock()
		status, answer = tc.status, tc.answer
		mu.Unlock()
		res := request(t, "POST", g.URL+"/v1/batches", create, bearer(masterKey)...)
		e := res.Err(t)
		if res.Status != tc.wantStatus || e.Type != tc.typ || orNull(e.Code) != cmp.Or(tc.code, "<null>") || e.Provider != "oa" ||
			!strings.Contains(e.Message, tc.message) || res.Header.Get("Retry-After") != tc.retry {
			t.Errorf("upstream %d: gateway answered %d, Retry-After %q: %s", tc.status, res.Status, res.Header.Get("Retry-After"), res.Body)
		}
		if strings.Contains(string(res.Body), "sk-upstr") || strings.Contains(string(res.Body), "cdef") {
			t.Errorf("upstream %d: the answer quotes the provider's key: %s", tc.status, res.Body)
		}
	}
}
