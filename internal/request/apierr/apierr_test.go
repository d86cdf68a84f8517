package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWriteGatewayShape(t *testing.T) {
	rec := httptest.NewRecorder()
	e := NotFound("model \"x\" not found").WithCode("model_not_found").WithParam("model")
	e.RetryAfter = 3
	Write(rec, fmt.Errorf("wrapped: %w", e))
	if rec.Code != 404 {
		t.Fatalf("status %d", rec.Code)
	}
	if rec.Header().Get("Retry-After") != "3" {
		t.Fatalf("Retry-After %q", rec.Header().Get("Retry-After"))
	}
	var got struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "not_found_error", "message": "model \"x\" not found", "code": "model_not_found",
		"param": "model", "provider": "", "status_code": float64(404)}
	for k, v := range want {
		if got.Error[k] != v {
			t.Errorf("%s = %v, want %v", k, got.Error[k], v)
		}
	}
}

func TestWriteNullCodeAndPlainError(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, errors.New("boom"))
	if rec.Code != 500 {
		t.Fatalf("status %d", rec.Code)
	}
	var got struct {
		Error map[string]any `json:"error"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &got)
	if v, ok := got.Error["code"]; !ok || v != nil {
		t.Fatalf("code should be null, got %v (present %v)", v, ok)
	}
}

func TestWriteAnthropicEnvelope(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteAnthropic(rec, Unauthorized("missing key"))
	var got struct {
		Type  string `json:"type"`
		Error struct {
			Type, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 401 || got.Type != "error" || got.Error.Type != "authentication_error" || got.Error.Message != "missing key" {
		t.Fatalf("got %d %+v", rec.Code, got)
	}
}

// TestNoRetryOnRefusedCredential: 401 and 403 tell clients not to retry,
// in both envelopes; other errors leave retrying to the client.
func TestNoRetryOnRefusedCredential(t *testing.T) {
	for _, c := range []struct {
		status int
		want   string
	}{{401, "false"}, {403, "false"}, {400, ""}, {429, ""}, {500, ""}} {
		for name, write := range map[string]func(http.ResponseWriter, error){"gateway": Write, "anthropic": WriteAnthropic} {
			rec := httptest.NewRecorder()
			write(rec, New(c.status, TypeAuthentication, "x"))
			if got := rec.Header().Get("X-Should-Retry"); got != c.want {
				t.Errorf("%s %d: X-Should-Retry %q, want %q", name, c.status, got, c.want)
			}
		}
	}
}

func TestWithUpstreamRetryAfter(t *testing.T) {
	for _, c := range []struct {
		status      int
		value       string
		wantHeader  string
		wantSeconds int
	}{
		{429, " 7 ", "7", 0},
		{429, "Wed, 21 Oct 2026 07:28:00 GMT", "Wed, 21 Oct 2026 07:28:00 GMT", 0},
		{429, "", "", 1},
		{503, "", "", 0},
		{503, "30", "30", 0},
	} {
		e := New(c.status, TypeForStatus(c.status), "m").WithUpstreamRetryAfter(c.value)
		if e.RetryAfterHeader != c.wantHeader || e.RetryAfter != c.wantSeconds {
			t.Errorf("%d %q: header %q seconds %d, want %q %d", c.status, c.value, e.RetryAfterHeader, e.RetryAfter, c.wantHeader, c.wantSeconds)
		}
	}
}
