package e2e

// Helpers of the access and key end-to-end tests (files access_*_test.go
// and keys_*_test.go): a gateway with a master key and the mock provider,
// plain HTTP calls, and managed keys created through the admin API.

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// accMaster is the master key of the access tests.
const accMaster = "mg-master-access-0123456789"

// accChat is a small chat completion request for the mock provider.
const accChat = `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`

// accClearEnv unsets every environment variable the gateway reads, so the
// Caddyfile alone configures it.
func accClearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasSuffix(k, "_API_KEY"), strings.HasSuffix(k, "_BASE_URL"),
			strings.HasPrefix(k, "ADMIN_"), strings.HasSuffix(k, "_ENABLED"),
			k == "GATEWAY_MASTER_KEY", k == "MODELGATE_DATA_PATH", k == "USER_PATH_HEADER",
			k == "DASHBOARD_LIVE_LOGS_ENABLED", k == "GATEWAY_ENTITLEMENTS", k == "ENABLED_PASSTHROUGH_PROVIDERS":
			t.Setenv(k, "")
		}
	}
}

// accBlock is a modelgate block with the master key, the mock provider and
// extra lines.
func accBlock(extra string) string {
	return "master_key " + accMaster + "\nprovider demo {\n type mock\n}\n" + extra
}

// accResp is one answer.
type accResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r accResp) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("not a JSON object (%d): %s", r.Status, r.Body)
	}
	return m
}

// accErr is the gateway error object.
type accErr struct {
	Type       string  `json:"type"`
	Message    string  `json:"message"`
	Code       *string `json:"code"`
	Param      *string `json:"param"`
	StatusCode int     `json:"status_code"`
}

// Err decodes a gateway error, failing when the body is not one.
func (r accResp) Err(t testing.TB) accErr {
	t.Helper()
	var body struct {
		Error *accErr `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Error == nil {
		t.Fatalf("not a gateway error (%d): %s", r.Status, r.Body)
	}
	if body.Error.StatusCode != r.Status {
		t.Fatalf("status_code %d in a %d answer", body.Error.StatusCode, r.Status)
	}
	return *body.Error
}

// ExpectErr checks status, type and code of an error answer.
func (r accResp) ExpectErr(t testing.TB, status int, typ, code string) accErr {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	e := r.Err(t)
	if e.Type != typ || e.Code == nil || *e.Code != code {
		t.Fatalf("error type %q code %v, want %s/%s: %s", e.Type, accStr(e.Code), typ, code, r.Body)
	}
	return e
}

func accStr(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// accDo sends a request; headers come in name, value pairs.
func accDo(t testing.TB, method, url, body string, headers ...string) accResp {
	t.Helper()
	// Like the SDKs, retry a request whose connection broke before any
	// answer: right after a reload, a connection the old server accepted
	// can be closed unanswered (see chat in reload_test.go).
	var resp *http.Response
	var err error
	for try := 0; try < 3; try++ {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, nerr := http.NewRequest(method, url, rd)
		if nerr != nil {
			t.Fatal(nerr)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(time.Duration(100<<try) * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return accResp{resp.StatusCode, resp.Header, b}
}

// bearer returns the Authorization header pair for key.
func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// accAdmin calls the admin API with the master key.
func accAdmin(t testing.TB, g *gateway, method, path, body string) accResp {
	t.Helper()
	return accDo(t, method, g.URL+path, body, bearer(accMaster)...)
}

// accKey is a managed key created through the admin API.
type accKey struct {
	ID     string
	Secret string
	View   map[string]any
}

// accCreateKey creates a managed key with the given JSON body.
func accCreateKey(t testing.TB, g *gateway, body string) accKey {
	t.Helper()
	res := accAdmin(t, g, "POST", "/admin/auth-keys", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("creating a key: %d %s", res.Status, res.Body)
	}
	m := res.JSON(t)
	k := accKey{ID: m["id"].(string), Secret: m["key"].(string), View: m}
	if !strings.HasPrefix(k.Secret, "sk_mg_") || len(k.Secret) != 38 {
		t.Fatalf("key %q has the wrong format", k.Secret)
	}
	return k
}
