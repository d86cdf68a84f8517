package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// firstWriteWriter is a discardWriter that keeps when the first bytes of
// the answer were written.
type firstWriteWriter struct {
	discardWriter
	first time.Time
}

func (f *firstWriteWriter) Write(b []byte) (int, error) {
	if f.first.IsZero() && len(b) > 0 {
		f.first = time.Now()
	}
	return len(b), nil
}

// eventPerRead yields a stream one event per Read, as an upstream that
// sends its events apart does: none waits behind another.
type eventPerRead struct{ s string }

func (e *eventPerRead) Read(p []byte) (int, error) {
	if e.s == "" {
		return 0, io.EOF
	}
	n := strings.Index(e.s, "\n\n") + 2
	n = copy(p, e.s[:n])
	e.s = e.s[n:]
	return n, nil
}

// BenchmarkProxyStreamFailover is BenchmarkProxyStream on a model with a
// failover route (m1 → m2), whose stream begins with a role-only chunk:
// the stream's head is held until its first content. The upstream's
// events arrive apart (eventPerRead), so each is written as it comes.
// ttfb-ns/op is the
// time from the request to the first byte written to the client.
func BenchmarkProxyStreamFailover(b *testing.B) {
	stream := `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}` + "\n\n" + chatStream()
	p := benchStub(func() *http.Response {
		r := sseResponse("")
		r.Body = io.NopCloser(&eventPerRead{s: stream})
		return r
	})
	reg := providers.NewRegistry([]providers.Entry{{Provider: twoModels{p}}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	vm, err := vmodels.New(vmodels.Options{Providers: map[string]string{"up": "openai"},
		ManagedFailover: vmodels.Failover{"m1": {"m2"}}})
	if err != nil {
		b.Fatal(err)
	}
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20, VirtualModels: vm}
	body := chatBody(1<<10, `"stream":true,`)
	b.ReportAllocs()
	var ttfb time.Duration
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		req.Header["Content-Type"] = jsonContentType
		info := reqinfo.New()
		info.VirtualModels, info.UserPath = true, "/"
		req = req.WithContext(reqinfo.With(req.Context(), info))
		w := &firstWriteWriter{discardWriter: discardWriter{h: http.Header{}}}
		start := time.Now()
		s.ServeHTTP(w, req)
		if w.first.IsZero() {
			b.Fatal("nothing was written")
		}
		ttfb += w.first.Sub(start)
	}
	b.ReportMetric(float64(ttfb.Nanoseconds())/float64(b.N), "ttfb-ns/op")
}
