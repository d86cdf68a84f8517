package jsonbody

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

type key struct {
	PeriodSeconds int64 `json:"period_seconds"`
}

type target struct {
	Model  string  `json:"model"`
	Weight float64 `json:"weight"`
}

type stamp struct{ time.Time }

func (s *stamp) UnmarshalJSON(b []byte) error {
	if err := s.Time.UnmarshalJSON(b); err != nil {
		return apierr.FieldMsg("expires_at", "must be an RFC 3339 time")
	}
	return nil
}

// wrapped decodes itself, as types with their own UnmarshalJSON do: the
// offsets of its errors count from its own start.
type wrapped struct{ t target }

func (w *wrapped) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &w.t) }

type body struct {
	key
	Wrapped   []wrapped `json:"wrapped"`
	Name      string    `json:"name"`
	Targets   []target  `json:"targets"`
	On        *bool     `json:"on"`
	ExpiresAt *stamp    `json:"expires_at"`
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		body               string
		o                  Options
		status             int
		code, param, inMsg string
	}{
		{`{"name":"a","period_seconds":60}`, Options{}, 0, "", "", ""},
		{``, Options{}, 0, "", "", ""},
		{`{"period_seconds":1.5}`, Options{}, 400, "invalid_value", "period_seconds", "must be a whole number"},
		{`{"period_seconds":"60"}`, Options{}, 400, "invalid_type", "period_seconds", "must be of type number"},
		{`{"targets":"x"}`, Options{}, 400, "invalid_type", "targets", "must be of type array"},
		{`{"targets":[{"model":5}]}`, Options{}, 400, "invalid_type", "targets[0].model", "targets[0].model must be of type string"},
		{`{"targets":[{"model":"a"},{"weight":"x"}]}`, Options{}, 400, "invalid_type", "targets[1].weight", "must be of type number"},
		{`{"name":"abcdefghijklmnop","wrapped":[{},{"model":1}]}`, Options{}, 400, "invalid_type", "wrapped.model", "must be of type string"},
		{`{"on":"yes"}`, Options{}, 400, "invalid_type", "on", "must be of type boolean"},
		{`{"name":{}}`, Options{}, 400, "invalid_type", "name", "must be of type string"},
		{`{"expires_at":"soon"}`, Options{}, 400, "invalid_value", "expires_at", "RFC 3339"},
		{`{"colour":"red"}`, Options{}, 400, "unknown_field", "colour", ""},
		{`{"colour":"red"}`, Options{AllowUnknown: true}, 0, "", "", ""},
		{`{"name":"a"} {}`, Options{}, 400, "invalid_json", "", "one JSON object"},
		{`{"name":`, Options{}, 400, "invalid_json", "", ""},
		{`["a"]`, Options{}, 400, "invalid_json", "", ""},
		{`{"name":"` + strings.Repeat("a", 2048) + `"}`, Options{MaxBytes: 1024}, 413, "request_too_large", "", "1 KiB"},
	} {
		var dst body
		e := Decode(httptest.NewRecorder(), httptest.NewRequest("PUT", "/", strings.NewReader(c.body)), &dst, c.o)
		if c.status == 0 {
			if e != nil {
				t.Errorf("%s: %+v", c.body, e)
			}
			continue
		}
		if e == nil || e.StatusCode != c.status || e.Code == nil || *e.Code != c.code ||
			(c.param != "" && (e.Param == nil || *e.Param != c.param)) || !strings.Contains(e.Message, c.inMsg) ||
			strings.Contains(e.Message, "jsonbody.") || strings.Contains(e.Message, "key.") {
			t.Errorf("%.60s: %+v (param %v)", c.body, e, e.Param)
		}
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 512 << 10: "512 KiB", 1000: "1000 bytes"} {
		if got := sizeText(n); got != want {
			t.Errorf("%d: %q", n, got)
		}
	}
}
