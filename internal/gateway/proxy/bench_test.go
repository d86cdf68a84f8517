package proxy

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// discardWriter is a ResponseWriter that keeps nothing, so benchmarks
// measure the gateway rather than a recorder's buffer.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

func benchServe(b *testing.B, s *Service, path, body string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header["Content-Type"] = jsonContentType
		req = req.WithContext(reqinfo.With(req.Context(), reqinfo.New()))
		s.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}

// benchSizes are the request body sizes of the load harness.
var benchSizes = []int{1 << 10, 64 << 10}

// chatBody is a chat request of about size bytes; extra members go first.
func chatBody(size int, extra string) string {
	return `{"model":"m1",` + extra + `"messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
}

// messagesBody is an Anthropic Messages request of about size bytes.
func messagesBody(size int, extra string) string {
	return `{"model":"m1","max_tokens":32,` + extra + `"messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
}

// chatStream is a 50-event chat stream ending with the usage chunk.
func chatStream() string {
	var sb strings.Builder
	for i := 0; i < 50; i++ {
		sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" word"},"finish_reason":null}],"usage":null}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"c","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":50,"total_tokens":59}}` + "\n\ndata: [DONE]\n\n")
	return sb.String()
}

func benchStub(answer func() *http.Response) *stubProvider {
	return &stubProvider{name: "up", streamOpt: true, noCopy: true,
		answer: func(providers.Endpoint, string, []byte) *http.Response { return answer() }}
}

// BenchmarkProxyChat is the gateway's own work for one non-streamed chat
// completion: read and check the body, resolve the model, relay the answer
// and read its usage. The upstream is an in-memory stub.
func BenchmarkProxyChat(b *testing.B) {
	s := newService(b, benchStub(func() *http.Response { return jsonResponse(200, chatAnswer) }))
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) { benchServe(b, s, "/v1/chat/completions", chatBody(size, "")) })
	}
}

// BenchmarkProxyChatPrefixed adds the body rewrite for provider/model
// addressing.
func BenchmarkProxyChatPrefixed(b *testing.B) {
	s := newService(b, benchStub(func() *http.Response { return jsonResponse(200, chatAnswer) }))
	benchServe(b, s, "/v1/chat/completions", strings.Replace(chatBody(1<<10, ""), `"m1"`, `"up/m1"`, 1))
}

// BenchmarkProxyStream relays a 50-event stream with the usage chunk
// dropped for a client that did not ask for it; the gateway adds
// stream_options to the request.
func BenchmarkProxyStream(b *testing.B) {
	stream := chatStream()
	s := newService(b, benchStub(func() *http.Response { return sseResponse(stream) }))
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			benchServe(b, s, "/v1/chat/completions", chatBody(size, `"stream":true,`))
		})
	}
}

// BenchmarkProxyMessages is an Anthropic Messages request translated onto
// an OpenAI-family upstream and its answer translated back.
func BenchmarkProxyMessages(b *testing.B) {
	s := newService(b, benchStub(func() *http.Response { return jsonResponse(200, chatAnswer) }))
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) { benchServe(b, s, "/v1/messages", messagesBody(size, "")) })
	}
}

// BenchmarkProxyMessagesStream is BenchmarkProxyMessages streamed: the
// chat chunks become Anthropic events one by one.
func BenchmarkProxyMessagesStream(b *testing.B) {
	stream := chatStream()
	s := newService(b, benchStub(func() *http.Response { return sseResponse(stream) }))
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			benchServe(b, s, "/v1/messages", messagesBody(size, `"stream":true,`))
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
