package routes

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		method, path string
		id           string // "" for no route
		ok           bool
	}{
		{"POST", "/v1/chat/completions", "createChatCompletion", true},
		{"POST", "/v1/chat/completions/", "createChatCompletion", true},
		{"GET", "/v1/chat/completions", "createChatCompletion", false},
		{"POST", "/v1/messages/count_tokens", "countMessageTokens", true},
		{"GET", "/v1/models", "listModels", true},
		{"HEAD", "/v1/models", "listModels", true},
		{"POST", "/v1/models", "listModels", false},
		{"GET", "/v1/models/gpt-4o", "getModel", true},
		{"GET", "/v1/models/groq/openai/gpt-oss-20b", "getModel", true},
		{"POST", "/v1/models/gpt-4o", "getModel", false},
		{"GET", "/health", "health", true},
		{"POST", "/health", "health", false},
		{"POST", "/v1/batches", "createBatch", true},
		{"GET", "/v1/batches", "listBatches", true},
		{"DELETE", "/v1/batches", "createBatch", false},
		{"GET", "/v1/batches/b1", "getBatch", true},
		{"POST", "/v1/batches/b1/cancel", "cancelBatch", true},
		{"GET", "/v1/batches//cancel", "", false},
		{"GET", "/v1/files/f1/content", "getFileContent", true},
		{"GET", "/p/elevenlabs/v2/voices", "passthrough", true},
		{"DELETE", "/p/openai", "passthrough", true},
		{"GET", "/p", "", false},
		{"GET", "/p/", "", false},
		{"GET", "/admin/auth-keys/k1", "getAuthKey", true},
		{"PATCH", "/admin/auth-keys/k1/", "updateAuthKey", true},
		{"POST", "/admin/auth-keys/k1", "getAuthKey", false},
		{"POST", "/admin/auth-keys/k1/deactivate", "deactivateAuthKey", true},
		{"GET", "/admin/auth-keys/k1/other", "adminOther", true},
		{"GET", "/admin", "adminOther", true},
		{"GET", "/admin/", "adminOther", true},
		{"GET", "/admin/api/v1/auth-keys", "adminOther", true},
		{"GET", "/administrator", "", false},
		{"GET", "/admin/auth-keysx/k1", "adminOther", true},
		{"GET", "/v1/filesx/f1", "", false},
		{"GET", "/v1/files/f1/contents", "", false},
		{"GET", "/v1/files/f1/content/x", "", false},
		{"GET", "/p//x", "", false},
		{"GET", "/admin/dashboard", "dashboardAdminDashboard", true},
		{"GET", "/admin/dashboard/", "dashboardAdminDashboard", true},
		{"POST", "/admin/dashboard", "dashboardAdminDashboard", false},
		{"GET", "/admin/dashboard/nope", "dashboardOther", true},
		{"GET", "/admin/dashboards", "adminOther", true},
		{"GET", "/admin/static/modelgate.css", "dashboardAdminStaticModelgateCss", true},
		{"GET", "/admin/static/x.js", "staticOther", true},
		{"POST", "/other", "", false},
		{"GET", "/", "", false},
		{"GET", "", "", false},
	} {
		r, ok := Lookup(c.method, c.path)
		id := ""
		if r != nil {
			id = r.ID
		}
		if id != c.id || ok != c.ok {
			t.Errorf("%s %q: %q %v, want %q %v", c.method, c.path, id, ok, c.id, c.ok)
		}
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	paths := []string{"/v1/chat/completions", "/v1/messages/", "/admin/auth-keys/k1/deactivate", "/p/x/y/z", "/admin/api/v1/usage/daily", "/nope"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			Lookup("POST", p)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

// Allow lists every method a path takes: HEAD, answered by the GET route,
// is named after GET.
func TestAllow(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/chat/completions": "POST", "/v1/batches": "POST, GET, HEAD", "/admin/auth-keys/x": "GET, HEAD, PATCH, DELETE",
		"/admin/auth-keys": "GET, HEAD, POST", "/p/x/y": "*", "/v1/models": "GET, HEAD", "/v1/files/x": "GET, HEAD, DELETE", "/v1/files": "POST, GET, HEAD",
	} {
		r, _ := Lookup("OPTIONS", path)
		if r == nil || r.Allow() != want {
			t.Errorf("%s: %v", path, r)
		}
	}
}

func TestPathParams(t *testing.T) {
	r, _ := Lookup("POST", "/admin/auth-keys/k1/deactivate/")
	if p := r.PathParams("/admin/auth-keys/k1/deactivate/"); len(p) != 1 || p["id"] != "k1" {
		t.Fatalf("%v", p)
	}
	if p := r.PathParams("/admin/auth-keys"); p != nil {
		t.Fatalf("non-matching path: %v", p)
	}
	r, _ = Lookup("GET", "/p/openai/v1/models")
	if p := r.PathParams("/p/openai/v1/models"); p["provider"] != "openai" {
		t.Fatalf("%v", p)
	}
	r, _ = Lookup("GET", "/v1/models")
	if p := r.PathParams("/v1/models"); p != nil {
		t.Fatalf("%v", p)
	}
}

// TestTableRules checks the attributes against the rules they encode.
func TestTableRules(t *testing.T) {
	for _, r := range All() {
		v1 := strings.HasPrefix(r.Path, "/v1/")
		admin := r.Path == "/admin/*" || strings.HasPrefix(r.Path, "/admin/")
		// Audited: every /v1/* model endpoint but the model listing and
		// retrieval and /v1/usage, passthrough, realtime and batch calls;
		// never /health or /admin/*.
		wantAudit := (v1 && r.Shape != ShapeModels && r.Path != "/v1/usage") || r.Shape == ShapePassthrough
		if r.Audited != wantAudit {
			t.Errorf("%s %s: audited %v", r.Method, r.Path, r.Audited)
		}
		if (r.Shape == ShapeRealtime || r.Shape == ShapeBatch) && !r.Audited {
			t.Errorf("%s not audited", r.ID)
		}
		// Credentials: admin routes need admin access, the dashboard and
		// /health none, everything else a key.
		want := CredentialKey
		switch {
		case r.Shape == ShapeDashboard || r.Path == "/health":
			want = CredentialNone
		case admin:
			want = CredentialAdmin
		}
		if r.Credential != want {
			t.Errorf("%s %s: credential %s, want %s", r.Method, r.Path, r.Credential, want)
		}
		if admin && (r.Shape != ShapeAdmin && r.Shape != ShapeDashboard) {
			t.Errorf("%s: shape %s under /admin", r.ID, r.Shape)
		}
		// Only what spends money is budgeted, and a budgeted route is
		// rate-limited and audited.
		if r.Budgeted && (r.RateLimit == CountNone || !r.Audited) {
			t.Errorf("%s: budgeted but not counted or audited", r.ID)
		}
		if r.Cacheable && !r.Budgeted {
			t.Errorf("%s: cacheable but spends nothing", r.ID)
		}
		if r.RateLimit == CountRequest && r.Shape != ShapeBatch {
			t.Errorf("%s: only batch submission counts without a slot", r.ID)
		}
	}
}

// TestCounting is how the user-path rate limits count each kind of call.
func TestCounting(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         Counting
	}{
		{"POST", "/v1/chat/completions", CountRequestAndSlot},
		{"POST", "/v1/embeddings/", CountRequestAndSlot},
		{"POST", "/v1/messages", CountRequestAndSlot},
		{"POST", "/v1/responses", CountRequestAndSlot},
		{"POST", "/v1/audio/speech", CountRequestAndSlot},
		{"POST", "/v1/audio/transcriptions", CountRequestAndSlot},
		{"GET", "/v1/realtime", CountRequestAndSlot},
		{"GET", "/p/elevenlabs/v2/voices", CountRequestAndSlot},
		{"POST", "/v1/batches", CountRequest},
		{"GET", "/v1/batches", CountNone},
		{"POST", "/v1/batches/b1/cancel", CountNone},
		{"POST", "/v1/files", CountNone},
		{"POST", "/v1/messages/count_tokens", CountNone},
		{"GET", "/v1/usage", CountNone},
		{"GET", "/v1/models", CountNone},
		{"GET", "/health", CountNone},
	} {
		r, ok := Lookup(c.method, c.path)
		if !ok || r.RateLimit != c.want {
			t.Errorf("%s %s: %v %v, want %s", c.method, c.path, r, ok, c.want)
		}
	}
}

func TestIndexRefusesMalformedTables(t *testing.T) {
	doc := &Doc{}
	ok := Route{ID: "a", Method: "GET", Path: "/a", Shape: ShapeHealth, Doc: doc}
	for name, c := range map[string]struct {
		routes []Route
		want   string
	}{
		"no id":             {[]Route{{Method: "GET", Path: "/a", Shape: ShapeHealth, Doc: doc}}, "no id"},
		"no method":         {[]Route{{ID: "a", Path: "/a", Shape: ShapeHealth, Doc: doc}}, "no method"},
		"relative path":     {[]Route{{ID: "a", Method: "GET", Path: "a", Shape: ShapeHealth, Doc: doc}}, "must start"},
		"trailing slash":    {[]Route{{ID: "a", Method: "GET", Path: "/a/", Shape: ShapeHealth, Doc: doc}}, "must start"},
		"inner star":        {[]Route{{ID: "a", Method: "GET", Path: "/a/*/b", Shape: ShapeHealth, Doc: doc}}, "may only end"},
		"no shape":          {[]Route{{ID: "a", Method: "GET", Path: "/a", Doc: doc}}, "no shape"},
		"undocumented":      {[]Route{{ID: "a", Method: "GET", Path: "/a", Shape: ShapeHealth}}, "undocumented"},
		"half a parameter":  {[]Route{{ID: "a", Method: "GET", Path: "/a/{id", Shape: ShapeHealth, Doc: doc}}, "whole {name}"},
		"duplicate id":      {[]Route{ok, {ID: "a", Method: "POST", Path: "/b", Shape: ShapeHealth, Doc: doc}}, "twice"},
		"duplicate method":  {[]Route{ok, {ID: "b", Method: "GET", Path: "/a", Shape: ShapeHealth, Doc: doc}}, "already has GET"},
		"any beside a verb": {[]Route{ok, {ID: "b", Method: Any, Path: "/a", Shape: ShapeHealth, Doc: doc}}, "already has GET"},
		"first segment":     {[]Route{{ID: "a", Method: "GET", Path: "/{x}/a", Shape: ShapeHealth, Doc: doc}}, "first segment"},
		"mixed credentials": {[]Route{ok, {ID: "b", Method: "POST", Path: "/a", Shape: ShapeHealth, Credential: CredentialNone, Doc: doc}}, "credential"},
	} {
		_, err := newIndex(c.routes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := newIndex([]Route{ok}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkLookup looks up the model endpoints, an admin route with an id
// and an unknown path.
func BenchmarkLookup(b *testing.B) {
	reqs := [][2]string{{"POST", "/v1/chat/completions"}, {"POST", "/v1/messages"}, {"POST", "/v1/embeddings"},
		{"POST", "/v1/responses"}, {"GET", "/v1/models"}, {"GET", "/admin/auth-keys/k1"}, {"POST", "/nope"}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := reqs[i%len(reqs)]
		Lookup(q[0], q[1])
	}
}

// Requests no route accepts are audited as every request to the model API
// is: under the path's route when it is audited, under a stand-in for an
// unknown path below /v1/; not for /v1/models, /v1/usage or elsewhere.
func TestAuditedUnmatched(t *testing.T) {
	for _, c := range []struct {
		method, path string
		audited      bool
	}{
		{"GET", "/v1/chat/completions", true},
		{"POST", "/v1/nonexistent", true},
		{"DELETE", "/v1/messages", true},
		{"POST", "/v1/models", false},
		{"POST", "/v1/usage", false},
		{"GET", "/nowhere", false},
		{"POST", "/v1", false},
	} {
		r, ok := Lookup(c.method, c.path)
		if ok {
			t.Fatalf("%s %s is served", c.method, c.path)
		}
		got := AuditedUnmatched(r, c.path)
		if (got != nil) != c.audited || (got != nil && !got.Audited) {
			t.Errorf("%s %s: audited under %+v, want %v", c.method, c.path, got, c.audited)
		}
	}
}
