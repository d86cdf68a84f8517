package proxy

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/reqinfo"
)

// discardWriter is a ResponseWriter that keeps nothing, so benchmarks
// measure the gateway rather than a recorder's buffer.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

func benchServe(b *testing.B, s *Service, body string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		req = req.WithContext(reqinfo.With(req.Context(), reqinfo.New()))
		s.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}

func chatBody(size int) string {
	return `{"model":"m1","messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
}

// BenchmarkProxyChat is the gateway's own work for one non-streamed chat
// completion: read and check the body, resolve the model, relay the answer
// and read its usage. The upstream is an in-memory stub.
func BenchmarkProxyChat(b *testing.B) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(b, p)
	for _, size := range []int{1 << 10, 64 << 10} {
		b.Run(sizeName(size), func(b *testing.B) { benchServe(b, s, chatBody(size)) })
	}
}

// BenchmarkProxyChatPrefixed adds the body rewrite for provider/model
// addressing.
func BenchmarkProxyChatPrefixed(b *testing.B) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(b, p)
	benchServe(b, s, strings.Replace(chatBody(1<<10), `"m1"`, `"up/m1"`, 1))
}

// BenchmarkProxyStream relays a 50-event stream with the usage chunk
// dropped for a client that did not ask for it.
func BenchmarkProxyStream(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 50; i++ {
		sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" word"},"finish_reason":null}],"usage":null}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"c","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":50,"total_tokens":59}}` + "\n\ndata: [DONE]\n\n")
	stream := sb.String()
	p := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response { return sseResponse(stream) }}
	s := newService(b, p)
	benchServe(b, s, `{"model":"m1","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
