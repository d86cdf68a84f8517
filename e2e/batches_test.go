package e2e

// Files and batches end to end with the official OpenAI SDK: a JSONL file
// uploaded, a batch of 20 chat lines run by the gateway itself on the mock
// provider, interrupted by a restart, finished, its output fetched, and
// one usage record per line.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// batchInput is a JSONL input file of n chat lines on model.
func batchInput(n int, url, model string) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"line %d"}]}`, model, i)
		if url == "/v1/embeddings" {
			body = fmt.Sprintf(`{"model":%q,"input":"line %d"}`, model, i)
		}
		fmt.Fprintf(&b, `{"custom_id":"req-%d","method":"POST","url":%q,"body":%s}`+"\n", i, url, body)
	}
	return b.Bytes()
}

// uploadBatchFile uploads content as a batch input file with the SDK.
func uploadBatchFile(t *testing.T, c openai.Client, content []byte) *openai.FileObject {
	t.Helper()
	f, err := c.Files.New(context.Background(), openai.FileNewParams{
		File:    openai.File(bytes.NewReader(content), "input.jsonl", "application/jsonl"),
		Purpose: openai.FilePurposeBatch,
	})
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	if f.Bytes != int64(len(content)) || f.Purpose != openai.FileObjectPurposeBatch || !strings.HasPrefix(f.ID, "file-") {
		t.Fatalf("uploaded file %+v", f)
	}
	return f
}

// auditedAsBatch counts the audit entries of paths under prefixes,
// failing the test for each one not audited as event type batch.
func auditedAsBatch(t *testing.T, entries map[string][]*audit.Entry, prefixes ...string) int {
	t.Helper()
	calls := 0
	for _, list := range entries {
		for _, e := range list {
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(e.Path, p) }) {
				continue
			}
			calls++
			if e.Data == nil || e.Data.EventType != "batch" {
				t.Errorf("%s %s audited as %+v", e.Method, e.Path, e.Data)
			}
		}
	}
	return calls
}

// waitBatch polls the batch until cond holds or 30 s pass.
func waitBatch(t *testing.T, c openai.Client, id string, cond func(*openai.Batch) bool) *openai.Batch {
	t.Helper()
	var b *openai.Batch
	defer func() {
		if t.Failed() && b != nil {
			t.Logf("batch %s: status %s, counts %+v", id, b.Status, b.RequestCounts)
		}
	}()
	poll(t, 30*time.Second, "batch "+id+" done waiting", func() bool {
		var err error
		if b, err = c.Batches.Get(context.Background(), id); err != nil {
			t.Fatalf("get batch: %v", err)
		}
		return cond(b)
	})
	return b
}

// TestBatchOnMockSurvivesRestart: 20 lines on the mock provider; the
// gateway stops while the batch runs, the new one resumes it, and the
// batch completes with 20 answers in its output file and 20 usage records.
func TestBatchOnMockSurvivesRestart(t *testing.T) {
	clearEnv(t)
	block := "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), "batches.db") +
		"\nprovider demo {\n type mock\n latency 120ms\n}\n"
	g := startGateway(t, block)
	c := openaiClient(g, masterKey)
	ctx := context.Background()

	f := uploadBatchFile(t, c, batchInput(20, "/v1/chat/completions", "mock-chat"))
	got, err := c.Files.Get(ctx, f.ID)
	if err != nil || got.ID != f.ID {
		t.Fatalf("get file: %v %+v", err, got)
	}
	b, err := c.Batches.New(ctx, openai.BatchNewParams{
		InputFileID:      f.ID,
		Endpoint:         openai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h,
		Metadata:         map[string]string{"job": "nightly"},
	})
	if err != nil {
		t.Fatalf("create batch: %v", err)
	}
	if !strings.HasPrefix(b.ID, "batch_") || b.RequestCounts.Total != 20 || b.Metadata["job"] != "nightly" {
		t.Fatalf("created batch %+v", b)
	}
	mid := waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.RequestCounts.Completed >= 3 })
	if mid.Status != openai.BatchStatusInProgress || mid.RequestCounts.Completed >= 20 {
		t.Fatalf("before the restart: status %s, counts %+v; want in_progress midway", mid.Status, mid.RequestCounts)
	}

	g = restartGateway(t, block)
	c = openaiClient(g, masterKey)
	after, err := c.Batches.Get(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.RequestCounts.Completed >= 20 {
		t.Fatalf("the batch finished before the restart (%+v): the test proves nothing", after.RequestCounts)
	}
	t.Logf("restarted with %d of 20 lines done", after.RequestCounts.Completed)
	done := waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.Status == openai.BatchStatusCompleted })
	if done.RequestCounts.Completed != 20 || done.RequestCounts.Failed != 0 || done.OutputFileID == "" ||
		done.ErrorFileID != "" || done.CompletedAt == 0 || done.InProgressAt == 0 {
		t.Fatalf("finished batch %+v", done)
	}

	resp, err := c.Files.Content(ctx, done.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l struct {
			CustomID string `json:"custom_id"`
			Response struct {
				StatusCode int `json:"status_code"`
				Body       struct {
					Choices []struct {
						Message struct{ Content string } `json:"message"`
					} `json:"choices"`
				} `json:"body"`
			} `json:"response"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("output line %s: %v", sc.Bytes(), err)
		}
		var n int
		fmt.Sscanf(l.CustomID, "req-%d", &n)
		if l.Response.StatusCode != 200 || len(l.Response.Body.Choices) != 1 ||
			l.Response.Body.Choices[0].Message.Content != fmt.Sprintf("Echo: line %d", n) || seen[l.CustomID] {
			t.Fatalf("output line %s", sc.Bytes())
		}
		seen[l.CustomID] = true
	}
	if len(seen) != 20 {
		t.Fatalf("output has %d lines, want 20", len(seen))
	}

	// One usage record per line, charged to the batch.
	entries, usage := auditRecords(t)
	// Every files and batches call is audited as event type batch.
	if calls := auditedAsBatch(t, entries, "/v1/files", "/v1/batches"); calls < 4 {
		t.Errorf("%d files and batches calls audited, want at least 4", calls)
	}
	id, err := audit.ParseID(strings.TrimPrefix(b.ID, "batch_"))
	if err != nil {
		t.Fatal(err)
	}
	recs := usage[id]
	if len(recs) != 20 {
		t.Fatalf("%d usage records for the batch, want 20", len(recs))
	}
	for _, u := range recs {
		if u.Endpoint != "/v1/chat/completions" || u.ProviderName != "demo" || u.Model != "mock-chat" || u.TotalTokens == 0 || u.UserPath != "/" {
			t.Fatalf("usage record %+v", u)
		}
	}

	// Listing shows it; a second restart records nothing twice.
	page, err := c.Batches.List(ctx, openai.BatchListParams{})
	if err != nil || len(page.Data) != 1 || page.Data[0].ID != b.ID {
		t.Fatalf("list: %v %+v", err, page)
	}
	restartGateway(t, block)
	if _, usage = auditRecords(t); len(usage[id]) != 20 {
		t.Fatalf("after another restart: %d usage records, want 20", len(usage[id]))
	}
}
