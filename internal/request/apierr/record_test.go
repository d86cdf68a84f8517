package apierr

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TestWriteForRecordsTheCode: the error written for a request is recorded
// on its reqinfo.Info: the code, or the type when there is none.
func TestWriteForRecordsTheCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{Unauthorized("no").WithCode("missing_api_key"), "missing_api_key"},
		{New(502, TypeProvider, "upstream"), TypeProvider},
		{errors.New("plain"), TypeProvider},
	} {
		info := reqinfo.New()
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		r = r.WithContext(reqinfo.With(r.Context(), info))
		rec := httptest.NewRecorder()
		WriteFor(rec, r, c.err)
		if info.ErrorCode != c.want || rec.Code < 400 {
			t.Errorf("%v: recorded %q, status %d", c.err, info.ErrorCode, rec.Code)
		}
		if e := From(c.err); info.ErrorType != e.Type || info.ErrorMessage != e.Message {
			t.Errorf("%v: recorded type %q message %q", c.err, info.ErrorType, info.ErrorMessage)
		}
	}
	// Without request state nothing is recorded, and the error is written.
	rec := httptest.NewRecorder()
	WriteFor(rec, httptest.NewRequest("GET", "/x", nil), NotFound("gone"))
	if rec.Code != 404 {
		t.Fatalf("%d", rec.Code)
	}
}
