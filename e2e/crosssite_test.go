package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestCrossSiteRefused: a change a browser marks as sent by another site's
// page (a form post, a multipart upload: requests a page may send without
// the browser asking first) is refused with 403 origin_not_allowed, on
// the model endpoints and the admin API alike; the same request from a
// client that is not a browser is served. POST /v1/batches takes only
// JSON, and names the member of a wrong type.
func TestCrossSiteRefused(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	waitListed(t, g, masterKey, "mock-transcribe")
	send := func(method, path, ct, body string, h map[string]string) (int, gatewayError, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, g.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+masterKey)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e gatewayError
		if resp.StatusCode >= 400 {
			e = decodeError(t, resp.StatusCode, b)
		}
		return resp.StatusCode, e, b
	}
	form, formCT := multipartBody(t, map[string]string{"model": "mock-transcribe"})
	rule := `{"user_path":"/csrf","period":"minute","max_requests":5}`

	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "http://evil.example"},
	} {
		if st, e, b := send("POST", "/v1/audio/transcriptions", formCT, form, h); st != 403 || orNull(e.Code) != "origin_not_allowed" {
			t.Errorf("cross-site transcription %v: %d %s", h, st, b)
		}
		if st, e, b := send("PUT", "/admin/rate-limits", "text/plain", rule, h); st != 403 || orNull(e.Code) != "origin_not_allowed" || e.Type != "invalid_request_error" {
			t.Errorf("cross-site admin change %v: %d %s", h, st, b)
		}
		if st, _, b := send("GET", "/admin/rate-limits", "", "", h); st != 200 {
			t.Errorf("cross-site admin read %v: %d %s", h, st, b)
		}
	}
	same := map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": g.URL}
	if st, _, b := send("POST", "/v1/audio/transcriptions", formCT, form, same); st != 200 {
		t.Errorf("same-origin transcription: %d %s", st, b)
	}
	// curl -d sends application/x-www-form-urlencoded: not a browser, served.
	if st, _, b := send("PUT", "/admin/rate-limits", "application/x-www-form-urlencoded", rule, nil); st != 200 {
		t.Errorf("admin change from curl: %d %s", st, b)
	}

	for _, c := range []struct {
		ct, body    string
		status      int
		code, param string
	}{
		{"text/plain", `{"input_file_id":"file-x","endpoint":"/v1/chat/completions","completion_window":"24h"}`, 415, "unsupported_media_type", "Content-Type"},
		{"application/json", `{bad`, 400, "invalid_json", "<null>"},
		{"application/json", `{"input_file_id":5,"endpoint":"/v1/chat/completions","completion_window":"24h"}`, 400, "invalid_type", "input_file_id"},
		{"application/json", `{"endpoint":"/v1/chat/completions","completion_window":"24h"}`, 400, "missing_required_parameter", "input_file_id"},
		{"application/json", `{"input_file_id":"file-x","endpoint":"/v1/chat/completions","completion_window":"1h"}`, 400, "invalid_value", "completion_window"},
	} {
		st, e, b := send("POST", "/v1/batches", c.ct, c.body, nil)
		if st != c.status || orNull(e.Code) != c.code || orNull(e.Param) != c.param || strings.Contains(string(b), "Go struct") {
			t.Errorf("batch %s %s: %d %s", c.ct, c.body, st, b)
		}
	}
}
