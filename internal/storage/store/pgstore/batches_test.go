package pgstore

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/batches"
)

// TestBatchesStorage: files, batches and results round-trip (result
// bodies byte for byte), reads of unknown ids answer ErrNotFound, batches
// list oldest first and results by line.
func TestBatchesStorage(t *testing.T) {
	db, dsn := newTestDB(t)
	st := NewBatches(db)
	if _, err := st.File("file-none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("File of an unknown id: %v", err)
	}
	if _, err := st.FileContent("file-none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("FileContent of an unknown id: %v", err)
	}
	if _, err := st.Batch("batch_none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("Batch of an unknown id: %v", err)
	}
	if l, err := st.Batches(); err != nil || len(l) != 0 {
		t.Fatalf("%v %v", l, err)
	}
	if r, err := st.Results("batch_none"); err != nil || len(r) != 0 {
		t.Fatalf("%v %v", r, err)
	}
	content := []byte("{\"a\":1}\n\x00\xff binary\n")
	f := &batches.File{ID: "file-1", UserPath: "/team", Bytes: int64(len(content)), CreatedAt: 1700000000, Filename: "in.jsonl", Purpose: "batch"}
	if err := st.PutFile(f, content); err != nil {
		t.Fatal(err)
	}
	if err := st.PutFile(&batches.File{ID: "file-empty"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"batch_2", "batch_1"} {
		if err := st.PutBatch(&batches.Batch{ID: id, UserPath: "/team", Status: "validating", InputFileID: "file-1"}); err != nil {
			t.Fatal(err)
		}
	}
	body := json.RawMessage(`{"z":1,"a":[2,  3]}`)
	for _, line := range []int{2, 0, 1} {
		b := &batches.Batch{ID: "batch_1", UserPath: "/team", Status: "in_progress", InputFileID: "file-1"}
		if err := st.PutResult(b, &batches.Result{Line: line, CustomID: "c", StatusCode: 200, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutResult(&batches.Batch{ID: "batch_1", Status: "completed"}, &batches.Result{Line: 1, StatusCode: 500}); err != nil {
		t.Fatal(err)
	}

	st = NewBatches(openTestDB(t, dsn))
	gf, err := st.File("file-1")
	if err != nil || *gf != *f {
		t.Fatalf("file %+v %v", gf, err)
	}
	gc, err := st.FileContent("file-1")
	if err != nil || string(gc) != string(content) {
		t.Fatalf("content %q %v", gc, err)
	}
	if gc, err := st.FileContent("file-empty"); err != nil || gc == nil || len(gc) != 0 {
		t.Fatalf("empty content %q %v", gc, err)
	}
	list, err := st.Batches()
	if err != nil || len(list) != 2 || list[0].ID != "batch_1" || list[1].ID != "batch_2" || list[0].Status != "completed" {
		t.Fatalf("batches %+v %v", list, err)
	}
	res, err := st.Results("batch_1")
	if err != nil || len(res) != 3 {
		t.Fatalf("results %+v %v", res, err)
	}
	for i, r := range res {
		if r.Line != i {
			t.Fatalf("result %d is line %d", i, r.Line)
		}
	}
	if res[1].StatusCode != 500 || string(res[0].Body) != `{"z":1,"a":[2,3]}` {
		t.Fatalf("results %+v, body %s", res, res[0].Body)
	}
}
