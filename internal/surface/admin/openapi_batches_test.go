package admin

import (
	"testing"
)

// TestOpenAPIBatchOperations: the files and batches routes document their
// own request and answer shapes (not a model call's), the limit and after
// parameters of the list, and the refusals they answer (415 for a body
// of another media type).
func TestOpenAPIBatchOperations(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	bodySchema := func(key, mediaType string) string {
		t.Helper()
		rb, _ := ops[key]["requestBody"].(map[string]any)
		c, _ := rb["content"].(map[string]any)[mediaType].(map[string]any)
		s, _ := c["schema"].(map[string]any)
		ref, _ := s["$ref"].(string)
		return ref
	}
	resultSchema := func(key, status string) string {
		t.Helper()
		r, _ := ops[key]["responses"].(map[string]any)[status].(map[string]any)
		c, _ := r["content"].(map[string]any)["application/json"].(map[string]any)
		s, _ := c["schema"].(map[string]any)
		ref, _ := s["$ref"].(string)
		return ref
	}
	const schemas = "#/components/schemas/"
	for key, want := range map[string][2]string{
		"POST /v1/files":                {"multipart/form-data", "BatchFileUpload"},
		"POST /v1/batches":              {"application/json", "BatchRequest"},
		"GET /v1/files/{id}":            {"", ""},
		"GET /v1/batches":               {"", ""},
		"GET /v1/batches/{id}":          {"", ""},
		"POST /v1/batches/{id}/cancel":  {"", ""},
		"GET /v1/files/{id}/content":    {"", ""},
		"POST /v1/chat/completions":     {"application/json", "ModelRequest"},
		"POST /v1/audio/transcriptions": {"multipart/form-data", "ModelRequest"},
	} {
		if want[0] != "" && bodySchema(key, want[0]) != schemas+want[1] {
			t.Errorf("%s: request body %q, want %s", key, bodySchema(key, want[0]), want[1])
		}
	}
	for key, want := range map[string]string{
		"POST /v1/files": "BatchFile", "GET /v1/files/{id}": "BatchFile", "POST /v1/batches": "Batch",
		"GET /v1/batches": "BatchList", "GET /v1/batches/{id}": "Batch", "POST /v1/batches/{id}/cancel": "Batch",
	} {
		if got := resultSchema(key, "200"); got != schemas+want {
			t.Errorf("%s: answer %q, want %s", key, got, want)
		}
	}
	for _, key := range []string{"POST /v1/files", "POST /v1/batches"} {
		if errorRef(t, ops, key, "415") == "" {
			t.Errorf("%s: no 415", key)
		}
	}
	names := map[string]bool{}
	for _, p := range ops["GET /v1/batches"]["parameters"].([]any) {
		names[p.(map[string]any)["name"].(string)] = true
	}
	if !names["limit"] || !names["after"] || errorRef(t, ops, "GET /v1/batches", "400") == "" {
		t.Errorf("GET /v1/batches: parameters %v", names)
	}
}
