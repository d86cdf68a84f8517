package mock

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func BenchmarkChat(b *testing.B) {
	cases := map[string]string{
		"echo":   `{"model":"mock-chat","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"Hello there, how are you doing today?"}]}`,
		"stream": `{"model":"mock-chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hello there, how are you doing today?"}]}`,
		"tools":  `{"model":"mock-chat","messages":[{"role":"user","content":"Paris mock:call"}],"tools":[` + weatherTool + `]}`,
		// A long conversation ahead of the members that follow it, as
		// the load harness sends: every member read after "messages"
		// must not cost another walk over it.
		"stream64KiB": `{"model":"mock-chat","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"` +
			strings.Repeat("lorem ipsum dolor sit amet ", 64<<10/27) + `"}],"max_tokens":32,"stream":true,"stream_options":{"include_usage":true}}`,
	}
	h := NewHandler(Options{})
	for name, body := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

func BenchmarkTransportChat(b *testing.B) {
	rt := NewTransport(Options{})
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "http://mock/v1/chat/completions", strings.NewReader(chatBody))
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
