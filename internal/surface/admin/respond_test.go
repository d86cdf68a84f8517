package admin

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBodyErrorNamesNumbersAnIntegerFieldCannotHold(t *testing.T) {
	for _, c := range []struct{ body, param, msg string }{
		{`{"max_requests":1e30}`, "max_requests", "max_requests is out of range: it must be a whole number from -9223372036854775808 to 9223372036854775807"},
		{`{"max_tokens":-1e19}`, "max_tokens", "max_tokens is out of range"},
		{`{"max_requests":1.5}`, "max_requests", "max_requests must be a whole number"},
		{`{"previous":{"period_seconds":2.5}}`, "previous.period_seconds", "previous.period_seconds must be a whole number"},
	} {
		var req rateLimitWrite
		r := httptest.NewRequest("PUT", "/admin/rate-limits", strings.NewReader(c.body))
		e := decodeBody(httptest.NewRecorder(), r, &req)
		if e == nil || e.Code == nil || *e.Code != "invalid_value" || e.Param == nil || *e.Param != c.param ||
			!strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%s: got %+v", c.body, e)
		}
	}
	var req rateLimitWrite
	e := decodeBody(httptest.NewRecorder(), httptest.NewRequest("PUT", "/", strings.NewReader(`{"max_requests":"5"}`)), &req)
	if e == nil || e.Message != "max_requests must be of type number" || *e.Code != "invalid_type" {
		t.Errorf("a string for a number: got %+v", e)
	}
}

func TestPutRateLimitRefusesHugeNumbersByRange(t *testing.T) {
	h, _ := newRateLimitHandler(t, false)
	e := do(h, "PUT", "/admin/rate-limits", `{"user_path":"/t","period":"minute","max_requests":1e30}`).
		expectErr(t, 400, "invalid_request_error", "invalid_value")
	if !strings.Contains(e.Message, "out of range") || strings.Contains(e.Message, "of type") {
		t.Fatalf("%+v", e)
	}
}
