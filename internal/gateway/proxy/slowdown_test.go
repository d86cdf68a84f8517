package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// slowService serves alias "slow" (slowdown factor) over an upstream
// that takes upstream to answer.
func slowService(t *testing.T, factor float64, upstream time.Duration, stream bool) *Service {
	stub := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response {
		time.Sleep(upstream)
		if stream {
			return sseResponse(chatStream())
		}
		return jsonResponse(200, chatAnswer)
	}}
	s := newService(t, stub)
	vm, err := vmodels.New(vmodels.Options{Providers: map[string]string{"up": "openai"}, Managed: vmodels.List{
		{Source: "slow", Slowdown: &factor, Targets: []vmodels.Target{{Provider: "up", Model: "m1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	s.VirtualModels = vm
	return s
}

func routedRequest(ctx context.Context, body string) *http.Request {
	req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)).WithContext(ctx)
	req.Header["Content-Type"] = jsonContentType
	info := reqinfo.New()
	info.VirtualModels = true
	return req.WithContext(reqinfo.With(req.Context(), info))
}

// TestSlowdownDelaysByFactor: an answer is held back factor times the
// upstream's own time, a stream included; a client that goes away ends
// the wait at once.
func TestSlowdownDelaysByFactor(t *testing.T) {
	const up = 60 * time.Millisecond
	for _, stream := range []bool{false, true} {
		s := slowService(t, 2, up, stream)
		body := `{"model":"slow","messages":[{"role":"user","content":"x"}]}`
		if stream {
			body = `{"model":"slow","stream":true,"messages":[{"role":"user","content":"x"}]}`
		}
		start := time.Now()
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, routedRequest(context.Background(), body))
		took := time.Since(start)
		if rec.Code != 200 || took < 3*up || took > 3*up+2*time.Second {
			t.Fatalf("stream %v: %d in %v, want about %v", stream, rec.Code, took, 3*up)
		}
	}

	s := slowService(t, 10, 100*time.Millisecond, false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	s.ServeHTTP(httptest.NewRecorder(), routedRequest(ctx, `{"model":"slow","messages":[{"role":"user","content":"x"}]}`))
	if took := time.Since(start); took > 800*time.Millisecond {
		t.Fatalf("a cancelled client waited %v (factor 10 of 100ms)", took)
	}
}
