package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// TestContentTypeRequired: model endpoints take only application/json.
func TestContentTypeRequired(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	body := `{"model":"m1","max_tokens":16,"messages":[]}`
	for _, c := range []struct {
		ct   []string
		want int
	}{
		{[]string{"application/json"}, 200},
		{[]string{"Application/JSON; charset=utf-8"}, 200},
		{[]string{" application/json ;charset=UTF-8"}, 200},
		{nil, 415},
		{[]string{""}, 415},
		{[]string{"text/plain"}, 415},
		{[]string{"text/plain;charset=UTF-8"}, 415},
		{[]string{"application/x-www-form-urlencoded"}, 415},
		{[]string{"multipart/form-data; boundary=x"}, 415},
		{[]string{"application/jsonx"}, 415},
		{[]string{"application/json-patch+json"}, 415},
	} {
		for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
			req := httptest.NewRequest("POST", path, strings.NewReader(body))
			req = req.WithContext(reqinfo.With(req.Context(), reqinfo.New()))
			if c.ct != nil {
				req.Header["Content-Type"] = c.ct
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != c.want {
				t.Errorf("%s %q: %d %s", path, c.ct, rec.Code, rec.Body.String())
				continue
			}
			if c.want != 415 {
				continue
			}
			msg := rec.Body.String()
			if !strings.Contains(msg, "Content-Type: application/json") {
				t.Errorf("%s %q: message does not say what to send: %s", path, c.ct, msg)
			}
			if path == "/v1/chat/completions" && !strings.Contains(msg, `"code":"unsupported_media_type"`) {
				t.Errorf("%q: %s", c.ct, msg)
			}
		}
	}
}
