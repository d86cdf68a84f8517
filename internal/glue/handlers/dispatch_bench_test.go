package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// stageRequests are the requests the route benchmarks route: the model
// endpoints, the listings, health, an admin call and an unknown path.
var stageRequests = [][2]string{
	{"POST", "/v1/chat/completions"}, {"POST", "/v1/messages"}, {"POST", "/v1/embeddings"}, {"GET", "/v1/models"},
	{"GET", "/v1/usage"}, {"GET", "/health"}, {"GET", "/admin/auth-keys/k1"}, {"POST", "/v1/nope"},
}

var stageSink int

// stageReq keeps a request alive, as passing it on to the next stage does.
var stageReq *http.Request

type layerKey int

// stageRequest is a request whose context has a server's few layers of
// values under the request state, as the chain sees it after auth.
func stageRequest(method, path string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	ctx := r.Context()
	for i := 0; i < 6; i++ {
		ctx = context.WithValue(ctx, layerKey(i), i)
	}
	return r.WithContext(reqinfo.With(ctx, reqinfo.New()))
}

// benchEach runs stage for each of stageRequests in a sub-benchmark.
func benchEach(b *testing.B, stage func(r *http.Request) int) {
	for _, q := range stageRequests {
		r := stageRequest(q[0], q[1])
		b.Run(q[0]+strings.ReplaceAll(q[1], "/", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				stageSink += stage(r)
			}
		})
	}
}

// BenchmarkDispatchClassify is the rate-limit stage's classification and
// the proxy's dispatch of one request.
func BenchmarkDispatchClassify(b *testing.B) {
	benchEach(b, func(r *http.Request) int {
		n := int(classify(reqinfo.Route(r)))
		if rt, ok := reqinfo.Route(r); rt != nil && rt.Served && ok {
			n += int(rt.Shape)
		}
		return n
	})
}

// BenchmarkRouteStages is what the stages of the chain ask about a
// request's route: auth its credential, the admin stage whether the route
// is its (and the request state when it is), the rate-limit stage how it
// counts (and the request state when it counts), the proxy its handler.
func BenchmarkRouteStages(b *testing.B) {
	benchEach(b, func(r *http.Request) int {
		_ = reqinfo.From(r.Context()) // auth: the request state
		n := int(credential(reqinfo.Route(r)))
		if rt, _ := reqinfo.Route(r); rt != nil && (rt.Shape == routes.ShapeAdmin || rt.Shape == routes.ShapeDashboard) {
			if reqinfo.From(r.Context()).Admin {
				n++
			}
			return n
		}
		if kind := classify(reqinfo.Route(r)); kind != routes.CountNone {
			_ = reqinfo.From(r.Context())
			n += int(kind)
		}
		if rt, ok := reqinfo.Route(r); rt != nil && rt.Served && ok {
			n += int(rt.Shape)
		}
		return n
	})
}

// BenchmarkRequestState is the first stage's work on the request state:
// create it, carry it in the request, and publish the placeholders.
func BenchmarkRequestState(b *testing.B) {
	base := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		info, r := requestInfo(serverRequest(base))
		stageSink += len(info.UserPath)
		stageReq = r // the request goes on to the next stage
	}
}

// serverRequest is base as a Caddy server hands it to the first handler:
// a fresh replacer with the server's own provider, a few context layers.
func serverRequest(base *http.Request) *http.Request {
	repl := caddy.NewReplacer()
	repl.Map(func(string) (any, bool) { return nil, false })
	ctx := context.WithValue(base.Context(), caddy.ReplacerCtxKey, repl)
	for i := 0; i < 6; i++ {
		ctx = context.WithValue(ctx, layerKey(i), i)
	}
	return base.WithContext(ctx)
}
