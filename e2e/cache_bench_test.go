package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCache compares, through the whole gateway over the in-process
// mock provider (client included), a repeated chat request answered by
// the response cache (hit) with one that misses every time (a new body:
// the upstream call plus capturing and storing the answer) and with the
// same request bypassing the cache (Cache-Control: no-cache, no-store).
// A hit must cost no more allocations than a miss.
func BenchmarkCache(b *testing.B) {
	b.Setenv("RESPONSE_CACHE_ENABLED", "true")
	g := startGateway(b, mockBlock(""))
	url := g.URL + "/v1/chat/completions"
	body := `{"model":"mock-chat","messages":[{"role":"user","content":"` + strings.Repeat("hello ", 150) + `"}]}`
	call := func(b *testing.B, body, want string, extra ...string) {
		res, err := send("POST", url, body, append(bearer(masterKey), extra...)...)
		if err != nil || res.Status != 200 || res.Header.Get(cacheHeader) != want {
			b.Fatalf("%v %d %q %s", err, res.Status, res.Header.Get(cacheHeader), res.Body)
		}
	}
	call(b, body, "miss")
	b.Run("hit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			call(b, body, "hit")
		}
	})
	n := 0 // every miss has a body never sent before
	b.Run("miss", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			n++
			call(b, strings.Replace(body, "hello", "n"+strconv.Itoa(n), 1), "miss")
		}
	})
	b.Run("bypass", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			call(b, body, "bypass", "Cache-Control", "no-cache, no-store")
		}
	})
}
