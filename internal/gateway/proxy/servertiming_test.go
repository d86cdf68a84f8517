package proxy

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

var serverTimingRE = regexp.MustCompile(`^gateway;dur=(\d+\.\d), upstream;dur=(\d+\.\d)(, ttft;dur=(\d+\.\d))?$`)

// TestServerTiming: with ServerTiming on, a model answer says how long the
// upstream took (a whole answer counted to its end) and what the gateway
// added; off, it carries no such header.
func TestServerTiming(t *testing.T) {
	const pause = 30 * time.Millisecond
	p := &stubProvider{name: "up", streamOpt: true, answer: func(_ providers.Endpoint, _ string, body []byte) *http.Response {
		time.Sleep(pause)
		if string(body) == `{"model":"m1","fail":true}` {
			return jsonResponse(500, `{"error":{"message":"down"}}`)
		}
		if len(body) > 0 && regexp.MustCompile(`"stream":true`).Match(body) {
			return sseResponse("data: {\"choices\":[]}\n\ndata: [DONE]\n\n")
		}
		return jsonResponse(200, chatAnswer)
	}}
	s := newService(t, p)
	for _, body := range []string{`{"model":"m1","messages":[]}`, `{"model":"m1","stream":true,"messages":[]}`, `{"model":"m1","fail":true}`} {
		s.ServerTiming = false
		if rec, _ := serve(s, "POST", "/v1/chat/completions", body); rec.Header().Get("Server-Timing") != "" {
			t.Fatalf("%s: Server-Timing while off: %q", body, rec.Header().Get("Server-Timing"))
		}
		s.ServerTiming = true
		rec, _ := serve(s, "POST", "/v1/chat/completions", body)
		m := serverTimingRE.FindStringSubmatch(rec.Header().Get("Server-Timing"))
		if m == nil {
			t.Fatalf("%s: %d, Server-Timing %q", body, rec.Code, rec.Header().Get("Server-Timing"))
		}
		gateway, _ := strconv.ParseFloat(m[1], 64)
		upstream, _ := strconv.ParseFloat(m[2], 64)
		if upstream < float64(pause/time.Millisecond) || gateway < 0 {
			t.Fatalf("%s: gateway %v ms, upstream %v ms for an upstream that takes %v", body, gateway, upstream, pause)
		}
		// A whole answer's first token came with it; a stream's headers
		// leave before its first token, and an error answer has none.
		whole := !strings.Contains(body, `"stream":true`) && !strings.Contains(body, `"fail"`)
		if ttft, _ := strconv.ParseFloat(m[4], 64); whole == (m[3] == "") || (whole && ttft < upstream) {
			t.Fatalf("%s: Server-Timing %q", body, rec.Header().Get("Server-Timing"))
		}
	}
}
