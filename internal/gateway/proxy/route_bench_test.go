package proxy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// benchServeRouted is benchServe for requests that passed the
// virtual-model stage.
func benchServeRouted(b *testing.B, s *Service, path, body string) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header["Content-Type"] = jsonContentType
		info := reqinfo.New()
		info.VirtualModels = true
		req = req.WithContext(reqinfo.With(req.Context(), info))
		s.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}

// BenchmarkProxyChatRouting compares, in one run, a 1 KiB chat request by
// its provider model name without routing (direct), with routing on and
// 1,000 virtual models in force (routed-direct), through a two-target
// alias of another name (alias: the body's model is rewritten), and
// through a two-target alias named like its upstream model (alias-same:
// what the load harness's modelgate-alias target does).
func BenchmarkProxyChatRouting(b *testing.B) {
	s := newService(b, benchStub(func() *http.Response { return jsonResponse(200, chatAnswer) }))
	var l vmodels.List
	for i := range 1000 {
		l = append(l, vmodels.VirtualModel{Source: fmt.Sprintf("alias-%d", i),
			Targets: []vmodels.Target{{Provider: "up", Model: "m1"}, {Provider: "up", Model: "m1", Weight: 2}}})
	}
	vm, err := vmodels.New(vmodels.Options{Managed: l, Providers: map[string]string{"up": "openai"}})
	if err != nil {
		b.Fatal(err)
	}
	same := newService(b, benchStub(func() *http.Response { return jsonResponse(200, chatAnswer) }))
	same.VirtualModels, err = vmodels.New(vmodels.Options{Providers: map[string]string{"up": "openai"}, Managed: vmodels.List{
		{Source: "m1", Targets: []vmodels.Target{{Provider: "up", Model: "m1"}, {Provider: "up", Model: "m1"}}}}})
	if err != nil {
		b.Fatal(err)
	}
	s.VirtualModels = vm
	body := chatBody(1<<10, "")
	b.Run("direct", func(b *testing.B) { benchServe(b, s, "/v1/chat/completions", body) })
	b.Run("routed-direct", func(b *testing.B) { benchServeRouted(b, s, "/v1/chat/completions", body) })
	b.Run("alias", func(b *testing.B) {
		benchServeRouted(b, s, "/v1/chat/completions", strings.Replace(body, `"m1"`, `"alias-500"`, 1))
	})
	b.Run("alias-same", func(b *testing.B) { benchServeRouted(b, same, "/v1/chat/completions", body) })
}
