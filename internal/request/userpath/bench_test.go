package userpath

import "testing"

// BenchmarkNormalize is the authentication step's cost per request: a
// header path already in normal form, one needing a leading slash and one
// with non-ASCII segments.
func BenchmarkNormalize(b *testing.B) {
	for _, p := range []string{"/customers/c1234/app", "team/alpha/", "/équipe/日本"} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Normalize(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
