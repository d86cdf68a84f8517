package e2e

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestSDKListsAndDeletesFiles: the OpenAI SDK's files.list pages through
// the caller's own files (another user path's are neither listed nor
// deletable), and files.delete removes one, whose content is then gone.
func TestSDKListsAndDeletesFiles(t *testing.T) {
	g := startGateway(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n}")
	a := createKey(t, g, `{"name":"a","user_path":"/team-a"}`)
	b := createKey(t, g, `{"name":"b","user_path":"/team-b"}`)
	ca, cb := openaiClient(g, a.Secret), openaiClient(g, b.Secret)
	ctx := context.Background()
	content := batchInput(1, "/v1/chat/completions", "mock-chat")
	var mine []string
	for range 3 {
		mine = append(mine, uploadBatchFile(t, ca, content).ID)
	}
	theirs := uploadBatchFile(t, cb, content).ID

	var listed []string
	pager := ca.Files.ListAutoPaging(ctx, openai.FileListParams{Limit: openai.Int(2), Order: openai.FileListParamsOrderAsc})
	for pager.Next() {
		listed = append(listed, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 || listed[0] != mine[0] || listed[1] != mine[1] || listed[2] != mine[2] {
		t.Fatalf("listed %v, uploaded %v", listed, mine)
	}
	del, err := ca.Files.Delete(ctx, mine[1])
	if err != nil || !del.Deleted || del.ID != mine[1] {
		t.Fatalf("delete: %+v %v", del, err)
	}
	var apiErr *openai.Error
	if _, err := ca.Files.Get(ctx, mine[1]); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("get after delete: %v", err)
	}
	if _, err := ca.Files.Delete(ctx, theirs); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("deleting another path's file: %v", err)
	}
	page, err := ca.Files.List(ctx, openai.FileListParams{})
	if err != nil || len(page.Data) != 2 || page.Data[0].ID != mine[2] || page.Data[1].ID != mine[0] {
		t.Fatalf("newest first after delete: %+v %v", page, err)
	}
}
