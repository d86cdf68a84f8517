package storetest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/batches"
)

// BatchesStorage checks a batches.Storage: unknown ids answer
// ErrNotFound, file content comes back byte for byte, batches list in
// byte order of their ids, results by line number (not text), and a
// result rewrites its batch in the same step.
func BatchesStorage(t *testing.T, st batches.Storage) {
	t.Helper()
	if _, err := st.File("file-none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("File: %v", err)
	}
	if _, err := st.FileContent("file-none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("FileContent: %v", err)
	}
	if _, err := st.Batch("batch_none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("Batch: %v", err)
	}
	if l, err := st.Batches(); err != nil || len(l) != 0 {
		t.Fatalf("%v %v", l, err)
	}
	if r, err := st.Results("batch_none"); err != nil || len(r) != 0 {
		t.Fatalf("%v %v", r, err)
	}
	content := []byte("line\n\x00\xff\xfe")
	f := &batches.File{ID: "file-1", UserPath: "/u", Bytes: int64(len(content)), CreatedAt: 1700000000, Filename: "a.jsonl", Purpose: batches.PurposeBatch}
	if err := st.PutFile(f, content); err != nil {
		t.Fatal(err)
	}
	if got, err := st.File("file-1"); err != nil || *got != *f {
		t.Fatalf("file %+v %v", got, err)
	}
	if got, err := st.FileContent("file-1"); err != nil || string(got) != string(content) {
		t.Fatalf("content %q %v", got, err)
	}
	for _, id := range []string{"batch_b", "batch_B", "batch_a"} {
		if err := st.PutBatch(&batches.Batch{ID: id, Status: "validating"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range []int{10, 2, 256, 0} {
		b := &batches.Batch{ID: "batch_a", Status: "in_progress"}
		if err := st.PutResult(b, &batches.Result{Line: line, StatusCode: 200, Body: json.RawMessage(`{"line":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutResult(&batches.Batch{ID: "batch_a", Status: "completed"}, &batches.Result{Line: 2, StatusCode: 500}); err != nil {
		t.Fatal(err)
	}
	list, err := st.Batches()
	if err != nil || len(list) != 3 || list[0].ID != "batch_B" || list[1].ID != "batch_a" || list[2].ID != "batch_b" {
		t.Fatalf("batches %+v %v", list, err)
	}
	if b, err := st.Batch("batch_a"); err != nil || b.Status != "completed" {
		t.Fatalf("batch %+v %v", b, err)
	}
	res, err := st.Results("batch_a")
	if err != nil || len(res) != 4 {
		t.Fatalf("results %+v %v", res, err)
	}
	for i, want := range []int{0, 2, 10, 256} {
		if res[i].Line != want {
			t.Fatalf("result %d is line %d, want %d", i, res[i].Line, want)
		}
	}
	if res[1].StatusCode != 500 || string(res[0].Body) != `{"line":1}` {
		t.Fatalf("results %+v", res)
	}
	if r, _ := st.Results("batch_b"); len(r) != 0 {
		t.Fatalf("another batch's results: %+v", r)
	}
}
