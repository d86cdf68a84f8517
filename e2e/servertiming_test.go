package e2e

import (
	"regexp"
	"testing"
)

// TestServerTimingHeader: with server_timing on, a model answer (whole,
// streamed, and from the response cache) carries Server-Timing with the
// gateway's and the upstream's time; without it, none does.
func TestServerTimingHeader(t *testing.T) {
	t.Setenv("RESPONSE_CACHE_ENABLED", "true")
	streamTiming := regexp.MustCompile(`^gateway;dur=\d+\.\d, upstream;dur=\d+\.\d$`)
	wholeTiming := regexp.MustCompile(`^gateway;dur=\d+\.\d, upstream;dur=\d+\.\d, ttft;dur=\d+\.\d$`)
	hitTiming := regexp.MustCompile(`^gateway;dur=\d+\.\d, cache;desc="hit"$`)
	g := startGateway(t, "master_key "+masterKey+"\nserver_timing on\nprovider demo {\n type mock\n latency 20ms\n}")
	stream := `{"model":"mock-chat","stream":true,"messages":[{"role":"user","content":"timing"}]}`
	for _, c := range []struct {
		name, body string
		timing     *regexp.Regexp
	}{{"whole", mockChat, wholeTiming}, {"stream", stream, streamTiming}} {
		res := request(t, "POST", g.URL+"/v1/chat/completions", c.body, bearer(masterKey)...)
		if res.Status != 200 || !c.timing.MatchString(res.Header.Get("Server-Timing")) {
			t.Fatalf("%s: %d Server-Timing %q", c.name, res.Status, res.Header.Get("Server-Timing"))
		}
	}
	hit := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(masterKey)...)
	if hit.Header.Get(cacheHeader) != "hit" || !hitTiming.MatchString(hit.Header.Get("Server-Timing")) {
		t.Fatalf("cache hit: %s=%q Server-Timing %q", cacheHeader, hit.Header.Get(cacheHeader), hit.Header.Get("Server-Timing"))
	}
	if err := g.reload(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n}"); err != nil {
		t.Fatal(err)
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", stream, bearer(masterKey)...); res.Header.Get("Server-Timing") != "" {
		t.Fatalf("off: Server-Timing %q", res.Header.Get("Server-Timing"))
	}
}
