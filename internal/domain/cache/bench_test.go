package cache

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkKeyOf is the key of a chat request of the load harness's body
// sizes: the canonical form and its hash.
func BenchmarkKeyOf(b *testing.B) {
	r := Request{Endpoint: "/v1/chat/completions", Provider: "up", Model: "mock-chat", UserPath: "/"}
	for _, size := range []int{1 << 10, 64 << 10} {
		body := []byte(`{"model":"mock-chat","max_tokens":32,"stream":false,"messages":[{"role":"user","content":"` +
			strings.Repeat("lorem ipsum ", size/12) + `"}]}`)
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				if _, err := KeyOf(r, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
