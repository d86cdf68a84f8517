package admin

import (
	"sort"
	"testing"
)

// TestOpenAPIMediaTypes: each operation documents every media type its
// success answer comes in (audio of the upstream's type, text formats of
// a transcription, event streams), and a body that is not JSON or text
// (audio, JSON Lines) carries no schema, which would describe one JSON
// value.
func TestOpenAPIMediaTypes(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	ops := docOps(fetchDoc(t, h))
	content := func(key, status string) map[string]any {
		t.Helper()
		r, _ := ops[key]["responses"].(map[string]any)[status].(map[string]any)
		c, _ := r["content"].(map[string]any)
		return c
	}
	for key, want := range map[string][]string{
		"POST /v1/audio/speech":         {"audio/*", "text/event-stream"},
		"POST /v1/audio/transcriptions": {"application/json", "text/*", "text/event-stream"},
		"GET /v1/files/{id}/content":    {"application/jsonl"},
		"POST /v1/chat/completions":     {"application/json", "text/event-stream"},
	} {
		var got []string
		for mt := range content(key, "200") {
			got = append(got, mt)
		}
		sort.Strings(got)
		if len(got) != len(want) {
			t.Errorf("%s: media types %v, want %v", key, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: media types %v, want %v", key, got, want)
				break
			}
		}
	}
	for key, mt := range map[string]string{"POST /v1/audio/speech": "audio/*", "GET /v1/files/{id}/content": "application/jsonl"} {
		if _, has := content(key, "200")[mt].(map[string]any)["schema"]; has {
			t.Errorf("%s: %s has a schema", key, mt)
		}
	}
	if _, has := content("POST /v1/audio/transcriptions", "200")["text/*"].(map[string]any)["schema"]; !has {
		t.Error("transcription text has no schema")
	}
}
