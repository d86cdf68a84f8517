package admin

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
)

const testMaster = "mg-master-admin-test"

// testClock is a settable clock.
type testClock struct{ now time.Time }

func (c *testClock) Now() time.Time { return c.now }

// newTestHandler returns a Handler over a fresh key store, with the
// effective defaults changed by edit.
func newTestHandler(t *testing.T, edit func(c *config.Config, o *Options)) (*Handler, *testClock) {
	t.Helper()
	st, err := store.Open(store.Options{Path: filepath.Join(t.TempDir(), "admin.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := &testClock{now: time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)}
	svc, err := keys.Open(boltstore.NewKeys(st), keys.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.MasterKey = testMaster
	cfg.Providers = config.Providers{{Name: "openai", Type: "openai", APIKey: "sk-provider-secret"}}
	opts := Options{Keys: svc, Version: "9.9.9-test", Now: clk.Now,
		Providers: []ProviderInfo{{Name: "openai", Type: "openai"}, {Name: "demo", Type: "mock"}}}
	if edit != nil {
		edit(&cfg, &opts)
	}
	opts.Config = cfg
	return New(opts), clk
}

// result is one recorded answer.
type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not a JSON object (%d): %s", r.status, r.body)
	}
	return m
}

// gwErr is the gateway error object.
type gwErr struct {
	Type       string  `json:"type"`
	Message    string  `json:"message"`
	Code       *string `json:"code"`
	Param      *string `json:"param"`
	StatusCode int     `json:"status_code"`
}

func (r result) err(t *testing.T) gwErr {
	t.Helper()
	var body struct {
		Error *gwErr `json:"error"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Error == nil {
		t.Fatalf("not a gateway error (%d): %s", r.status, r.body)
	}
	if body.Error.StatusCode != r.status {
		t.Fatalf("status_code %d in a %d answer", body.Error.StatusCode, r.status)
	}
	return *body.Error
}

// expectErr checks status, type and code of an error answer.
func (r result) expectErr(t *testing.T, status int, typ, code string) gwErr {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	e := r.err(t)
	if e.Type != typ || e.Code == nil || *e.Code != code {
		t.Fatalf("error %+v, want %s/%s", e, typ, code)
	}
	return e
}

func do(h http.Handler, method, path, body string) result {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, rd))
	return result{rec.Code, rec.Header(), rec.Body.Bytes()}
}
