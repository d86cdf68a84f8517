package records

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

func TestBatchesGolden(t *testing.T) {
	f := &batches.File{ID: "file-1", UserPath: "/team", Bytes: 42, CreatedAt: 1700000000, Filename: "in.jsonl", Purpose: "batch"}
	b, err := EncodeFile(f)
	golden(t, b, err, `{"id":"file-1","user_path":"/team","bytes":42,"created_at":1700000000,"filename":"in.jsonl","purpose":"batch"}`)
	bt := &batches.Batch{ID: "batch-1", UserPath: "/team", Endpoint: "/v1/chat/completions", InputFileID: "file-1",
		CompletionWindow: "24h", Status: "in_progress", OutputFileID: "file-2", Metadata: map[string]string{"k": "v", "a": "b"},
		Total: 3, Completed: 1, Failed: 1, CreatedAt: 1700000000, InProgressAt: 1700000001}
	b, err = EncodeBatch(bt)
	golden(t, b, err, `{"id":"batch-1","user_path":"/team","endpoint":"/v1/chat/completions","input_file_id":"file-1","completion_window":"24h","status":"in_progress","output_file_id":"file-2","metadata":{"a":"b","k":"v"},"total":3,"completed":1,"failed":1,"created_at":1700000000,"in_progress_at":1700000001}`)
	b, err = EncodeResult(&batches.Result{Line: 2, CustomID: "c-2", StatusCode: 200, Body: json.RawMessage(`{"id":"x","n":1}`),
		RequestID: "req-1", At: at, ProviderName: "openai", ProviderType: "openai", Model: "gpt-4o",
		Usage: catalog.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}, HasUsage: true,
		InputCost: ptr(0.25), OutputCost: ptr(0.25), TotalCost: ptr(0.25)})
	golden(t, b, err, `{"line":2,"custom_id":"c-2","status_code":200,"body":{"id":"x","n":1},"request_id":"req-1","at":"2024-05-06T07:08:09.123456789Z","provider_name":"openai","provider_type":"openai","model":"gpt-4o","usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3,"cached_input_tokens":0,"cache_write_input_tokens":0,"reasoning_tokens":0},"has_usage":true,"input_cost":0.25,"output_cost":0.25,"total_cost":0.25}`)
	b, err = EncodeResult(&batches.Result{Line: 3, CustomID: "c-3", StatusCode: 500, At: time.Unix(1700000000, 0).UTC()})
	golden(t, b, err, `{"line":3,"custom_id":"c-3","status_code":500,"request_id":"","at":"2023-11-14T22:13:20Z","usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"cached_input_tokens":0,"cache_write_input_tokens":0,"reasoning_tokens":0}}`)
}

func TestBatchesRoundTrip(t *testing.T) {
	f := &batches.File{ID: "file-1", UserPath: "/u", Bytes: 1, CreatedAt: 2, Filename: "a", Purpose: "batch"}
	b, err := EncodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeFile("file-1", b); err != nil || *got != *f {
		t.Fatalf("file read as %+v, %v", got, err)
	}
	bt := &batches.Batch{ID: "batch-1", Status: "completed", Metadata: map[string]string{"x": "y"}, Total: 1, Completed: 1, CompletedAt: 9}
	if b, err = EncodeBatch(bt); err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeBatch("batch-1", b); err != nil || !reflect.DeepEqual(got, bt) {
		t.Fatalf("batch read as %+v, %v", got, err)
	}
	r := &batches.Result{Line: 7, CustomID: "c", StatusCode: 200, Body: json.RawMessage(`{"a":[1,2]}`), At: at, TotalCost: ptr(1.5)}
	if b, err = EncodeResult(r); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeResult("batch-1", b)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("result read as %+v, %v", got, err)
	}
	// The body is a copy: the stored bytes may be reused by the engine.
	clear(b)
	if string(got.Body) != `{"a":[1,2]}` {
		t.Fatalf("body aliases the stored record: %s", got.Body)
	}
}

func TestBatchesErrors(t *testing.T) {
	if _, err := DecodeFile("file-1", []byte(`{`)); err == nil || !strings.Contains(err.Error(), `batch file "file-1"`) {
		t.Fatal(err)
	}
	if _, err := DecodeBatch("batch-1", []byte(`[]`)); err == nil || !strings.Contains(err.Error(), `batch "batch-1"`) {
		t.Fatal(err)
	}
	if _, err := DecodeResult("batch-1", []byte(`{"line":"x"}`)); err == nil || !strings.Contains(err.Error(), `batch "batch-1": result`) {
		t.Fatal(err)
	}
}
