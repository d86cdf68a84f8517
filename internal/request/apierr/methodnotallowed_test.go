package apierr

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

func TestWriteMethodNotAllowed(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteMethodNotAllowed(rec, httptest.NewRequest("DELETE", "/v1/batches/", nil), "POST, GET, HEAD")
	var body struct{ Error Error }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	e := body.Error
	if rec.Code != 405 || rec.Header().Get("Allow") != "POST, GET, HEAD" || e.Type != TypeInvalidRequest ||
		e.Code == nil || *e.Code != "method_not_allowed" || e.StatusCode != 405 ||
		e.Message != "method DELETE is not allowed on /v1/batches; use POST, GET or HEAD" {
		t.Fatalf("%d Allow %q: %s", rec.Code, rec.Header().Get("Allow"), rec.Body)
	}
}
