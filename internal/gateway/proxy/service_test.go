package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// concrete fills a route pattern's parameters and catch-all.
func concrete(pattern string) string {
	p := strings.ReplaceAll(strings.ReplaceAll(pattern, "{id}", "x1"), "{provider}", "p1")
	return strings.ReplaceAll(p, "*", "a/b")
}

// TestDispatchFollowsTable: the service answers exactly the served routes
// of the route table whose shape it handles, refuses other methods on them
// with 405 and the table's Allow, and answers every other route (not
// served yet, or answered by another stage) 404 unknown_route.
func TestDispatchFollowsTable(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	usageCalled := false
	s.SelfUsage = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		usageCalled = true
		w.WriteHeader(http.StatusTeapot)
	})
	batchCalls := 0
	s.Batches = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		batchCalls++
		w.WriteHeader(http.StatusTeapot)
	})
	s.StoredResponses = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	handled := map[routes.Shape]bool{}
	for _, rt := range routes.All() {
		method := rt.Method
		if method == routes.Any {
			method = http.MethodPut
		}
		path := concrete(rt.Path)
		rec, _ := serve(s, method, path, `{"model":"m1","input":"x","messages":[{"role":"user","content":"hi"}]}`)
		unknown := rec.Code == 404 && strings.Contains(rec.Body.String(), `"unknown_route"`)
		if !rt.Served || !serves(rt.Shape) {
			if !unknown {
				t.Errorf("%s %s (served %v, shape %s): %d %s, want unknown_route", method, path, rt.Served, rt.Shape, rec.Code, rec.Body)
			}
			continue
		}
		handled[rt.Shape] = true
		if unknown || rec.Code == 405 {
			t.Errorf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		if rt.Method == routes.Any {
			continue
		}
		rec, _ = serve(s, "TRACE", path, "")
		if rec.Code != 405 || rec.Header().Get("Allow") != rt.Allow() {
			t.Errorf("TRACE %s: %d %s, Allow %q", path, rec.Code, rec.Body, rec.Header().Get("Allow"))
		}
	}
	if !usageCalled {
		t.Error("GET /v1/usage did not reach the self-usage handler")
	}
	if batchCalls != 15 {
		t.Errorf("%d files, batches and message batches calls reached the batches handler, want 15", batchCalls)
	}
	for shape := routes.Shape(0); shape < routes.NumShapes; shape++ {
		if serves(shape) && !handled[shape] {
			t.Errorf("handler for shape %s, which no served route has", shape)
		}
	}
	// Without a self-usage handler the route is unknown here.
	s.SelfUsage = nil
	if rec, _ := serve(s, "GET", "/v1/usage", ""); rec.Code != 404 {
		t.Errorf("no self-usage handler: %d", rec.Code)
	}
	// The 405 names the path and the allowed methods.
	rec, _ := serve(s, "GET", "/v1/chat/completions/", "")
	if e := errorOf(t, rec); e["message"] != "method GET is not allowed on /v1/chat/completions; use POST" {
		t.Errorf("message %v", e["message"])
	}
}
