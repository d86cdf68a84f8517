package storetest

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/batches"
)

// BatchesStorage checks a batches.Storage: unknown ids answer
// ErrNotFound, file content comes back byte for byte (empty content as
// empty, not missing), a batch comes back field for field, batches list
// in byte order of their ids, results by line number (not text) with
// their custom ids and their bodies as compact JSON, and a result
// rewrites its batch in the same step.
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
	if err := st.PutFile(&batches.File{ID: "file-empty"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := st.FileContent("file-empty"); err != nil || len(got) != 0 {
		t.Fatalf("empty content %q %v", got, err)
	}
	full := &batches.Batch{ID: "batch_full", Kind: batches.KindMessages, UserPath: "/team", Endpoint: "/v1/chat/completions", InputFileID: "file-1",
		CompletionWindow: "24h", Status: "completed", OutputFileID: "file-out", ErrorFileID: "file-err",
		Metadata: map[string]string{"k": "v"}, Total: 3, Completed: 2, Failed: 1, CreatedAt: 1700000000,
		InProgressAt: 1700000001, FinalizingAt: 1700000002, CompletedAt: 1700000003, ExpiresAt: 1700086400,
		Provider: "oai", ProviderType: "openai", UpstreamID: "batch_up"}
	if err := st.PutBatch(full); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Batch("batch_full"); err != nil || !reflect.DeepEqual(got, full) {
		t.Fatalf("batch %+v %v, want %+v", got, err, full)
	}
	for _, id := range []string{"batch_b", "batch_B", "batch_a"} {
		if err := st.PutBatch(&batches.Batch{ID: id, Status: "validating"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range []int{10, 2, 256, 0} {
		b := &batches.Batch{ID: "batch_a", Status: "in_progress"}
		if err := st.PutResult(b, &batches.Result{Line: line, CustomID: "c", StatusCode: 200, Body: json.RawMessage(`{"z":1,"a":[2,  3]}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutResult(&batches.Batch{ID: "batch_a", Status: "completed"}, &batches.Result{Line: 2, StatusCode: 500}); err != nil {
		t.Fatal(err)
	}
	list, err := st.Batches()
	if err != nil || len(list) != 4 || list[0].ID != "batch_B" || list[1].ID != "batch_a" || list[2].ID != "batch_b" || list[3].ID != "batch_full" {
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
	if res[1].StatusCode != 500 || string(res[0].Body) != `{"z":1,"a":[2,3]}` || res[0].CustomID != "c" {
		t.Fatalf("results %+v", res)
	}
	if r, _ := st.Results("batch_b"); len(r) != 0 {
		t.Fatalf("another batch's results: %+v", r)
	}
}

// BatchesEmptyContentNotNil checks that a batches.Storage answers the
// content of a file stored empty with an empty slice, not nil.
func BatchesEmptyContentNotNil(t *testing.T, st batches.Storage) {
	t.Helper()
	if err := st.PutFile(&batches.File{ID: "file-empty"}, []byte{}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.FileContent("file-empty"); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty content %q (nil %v) %v, want an empty slice", got, got == nil, err)
	}
}

// BatchesSurviveRestart checks that files, batches and results a
// batches.Storage stored are what a restarted process reads. open returns
// the engine's storage as a newly started process sees it; each call ends
// the handle it returned before where the engine allows one at a time.
func BatchesSurviveRestart(t *testing.T, open func() batches.Storage) {
	t.Helper()
	st := open()
	content := []byte("{\"a\":1}\n\x00\xff binary\n")
	f := &batches.File{ID: "file-1", UserPath: "/team", Bytes: int64(len(content)), CreatedAt: 1700000000, Filename: "in.jsonl", Purpose: batches.PurposeBatch}
	if err := st.PutFile(f, content); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"batch_2", "batch_1"} {
		if err := st.PutBatch(&batches.Batch{ID: id, UserPath: "/team", Status: "validating", InputFileID: "file-1"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range []int{2, 0, 1} {
		b := &batches.Batch{ID: "batch_1", UserPath: "/team", Status: "in_progress", InputFileID: "file-1"}
		if err := st.PutResult(b, &batches.Result{Line: line, CustomID: "c", StatusCode: 200, Body: json.RawMessage(`{"ok":true}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutResult(&batches.Batch{ID: "batch_1", UserPath: "/team", Status: "completed", InputFileID: "file-1"}, &batches.Result{Line: 1, StatusCode: 500}); err != nil {
		t.Fatal(err)
	}

	st = open()
	if got, err := st.File("file-1"); err != nil || *got != *f {
		t.Fatalf("file after restart %+v %v", got, err)
	}
	if got, err := st.FileContent("file-1"); err != nil || string(got) != string(content) {
		t.Fatalf("content after restart %q %v", got, err)
	}
	list, err := st.Batches()
	if err != nil || len(list) != 2 || list[0].ID != "batch_1" || list[1].ID != "batch_2" || list[0].Status != "completed" || list[1].InputFileID != "file-1" {
		t.Fatalf("batches after restart %+v %v", list, err)
	}
	res, err := st.Results("batch_1")
	if err != nil || len(res) != 3 {
		t.Fatalf("results after restart %+v %v", res, err)
	}
	for i, r := range res {
		if r.Line != i {
			t.Fatalf("result %d is line %d", i, r.Line)
		}
	}
	if res[1].StatusCode != 500 || res[0].CustomID != "c" || string(res[2].Body) != `{"ok":true}` {
		t.Fatalf("results after restart %+v", res)
	}
}

// BatchesFiles checks listing and deleting files: an empty store lists
// none; files list oldest (lowest id) first without their content; a
// deleted file and its content are gone, the others stay, and deleting it
// again is ErrNotFound.
func BatchesFiles(t *testing.T, st batches.Storage) {
	t.Helper()
	if l, err := st.Files(); err != nil || len(l) != 0 {
		t.Fatalf("Files of an empty store: %v %v", l, err)
	}
	for _, id := range []string{"file-b", "file-a", "file-c"} {
		f := &batches.File{ID: id, UserPath: "/u", Bytes: 2, CreatedAt: 1700000000, Filename: id + ".jsonl", Purpose: batches.PurposeBatch}
		if err := st.PutFile(f, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() string {
		l, err := st.Files()
		if err != nil {
			t.Fatal(err)
		}
		var out string
		for _, f := range l {
			out += f.ID + " "
		}
		return out
	}
	if got := ids(); got != "file-a file-b file-c " {
		t.Fatalf("Files: %q", got)
	}
	if err := st.DeleteFile("file-b"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.File("file-b"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("File after delete: %v", err)
	}
	if _, err := st.FileContent("file-b"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("FileContent after delete: %v", err)
	}
	if got := ids(); got != "file-a file-c " {
		t.Fatalf("Files after delete: %q", got)
	}
	if err := st.DeleteFile("file-b"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if c, err := st.FileContent("file-c"); err != nil || string(c) != "{}" {
		t.Fatalf("another file's content: %q %v", c, err)
	}
}

// BatchesDelete checks DeleteBatch: it removes the batch and its results
// and nothing of another batch, and answers batches.ErrNotFound for an id
// not stored (a second deletion included).
func BatchesDelete(t *testing.T, st batches.Storage) {
	t.Helper()
	if err := st.DeleteBatch("batch_none"); !errors.Is(err, batches.ErrNotFound) {
		t.Fatalf("deleting an unknown batch: %v, want ErrNotFound", err)
	}
	for _, id := range []string{"batch_a", "batch_b"} {
		for line := 0; line < 3; line++ {
			if err := st.PutResult(&batches.Batch{ID: id, Status: "completed"}, &batches.Result{Line: line, CustomID: "c", StatusCode: 200}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.PutBatch(&batches.Batch{ID: "batch_c", Status: "completed"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"batch_a", "batch_c"} {
		if err := st.DeleteBatch(id); err != nil {
			t.Fatalf("deleting %s: %v", id, err)
		}
		if _, err := st.Batch(id); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("%s after its deletion: %v, want ErrNotFound", id, err)
		}
		if err := st.DeleteBatch(id); !errors.Is(err, batches.ErrNotFound) {
			t.Fatalf("deleting %s again: %v, want ErrNotFound", id, err)
		}
	}
	if r, err := st.Results("batch_a"); err != nil || len(r) != 0 {
		t.Fatalf("results of the deleted batch: %d %v", len(r), err)
	}
	list, err := st.Batches()
	if err != nil || len(list) != 1 || list[0].ID != "batch_b" {
		t.Fatalf("batches after the deletions: %+v %v", list, err)
	}
	if r, err := st.Results("batch_b"); err != nil || len(r) != 3 {
		t.Fatalf("results of the batch kept: %d %v", len(r), err)
	}
}
