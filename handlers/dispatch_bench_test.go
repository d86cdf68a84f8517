package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelgate/modelgate/reqinfo"
	"github.com/modelgate/modelgate/routes"
)

// stageRequests are the requests BenchmarkRouteStages routes: the model
// endpoints, the listings, health, an admin call and an unknown path.
var stageRequests = [][2]string{
	{"POST", "/v1/chat/completions"}, {"POST", "/v1/messages"}, {"POST", "/v1/embeddings"}, {"POST", "/v1/responses"},
	{"POST", "/v1/chat/completions"}, {"GET", "/v1/models"}, {"GET", "/v1/usage"}, {"GET", "/health"},
	{"GET", "/admin/auth-keys/k1"}, {"POST", "/v1/nope"},
}

var stageSink int

type layerKey int

// stageRequest is a request whose context has a server's few layers of
// values under the request state, as the chain sees it after auth.
func stageRequest(method, path string) (*http.Request, *reqinfo.Info) {
	r := httptest.NewRequest(method, path, nil)
	ctx := r.Context()
	for i := 0; i < 6; i++ {
		ctx = context.WithValue(ctx, layerKey(i), i)
	}
	info := reqinfo.New()
	return r.WithContext(reqinfo.With(ctx, info)), info
}

// BenchmarkRouteStages is what the stages of the chain ask about a
// request's route: auth its credential, the admin stage whether the route
// is its (and the request state when it is), the rate-limit stage how it
// counts (and the request state when it counts), the proxy its handler.
func BenchmarkRouteStages(b *testing.B) {
	reqs := make([]*http.Request, len(stageRequests))
	for i, q := range stageRequests {
		reqs[i], _ = stageRequest(q[0], q[1])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := reqs[i%len(reqs)]
		_ = reqinfo.From(r.Context()) // auth: the request state
		n := int(credential(route(r)))
		if rt, _ := route(r); rt != nil && (rt.Shape == routes.ShapeAdmin || rt.Shape == routes.ShapeDashboard) {
			if reqinfo.From(r.Context()).Admin {
				n++
			}
			stageSink += n
			continue
		}
		if kind := classify(route(r)); kind != routes.CountNone {
			_ = reqinfo.From(r.Context())
			n += int(kind)
		}
		if rt, ok := routes.Lookup(r.Method, r.URL.Path); rt != nil && rt.Served && ok {
			n += int(rt.Shape)
		}
		stageSink += n
	}
}
