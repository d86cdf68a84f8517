package vmodels

import (
	"fmt"
	"testing"
)

// BenchmarkResolve resolves one of 1,000 two-target virtual models per
// request, with availability checked and no session: the in-memory cost
// the virtual-model stage adds to a request.
func BenchmarkResolve(b *testing.B) {
	var l List
	for i := range 1000 {
		l = append(l, VirtualModel{Source: fmt.Sprintf("alias-%d", i),
			Targets: []Target{{Provider: "a", Model: fmt.Sprintf("m-%d", i), Weight: 3}, {Provider: "b", Model: fmt.Sprintf("m-%d", i)}}})
	}
	s := open(b, l)
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("alias-%d", i)
	}
	av := down{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := s.Resolve(names[i%1000], "/team", "", av); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkResolveSession is BenchmarkResolve with a detected session
// (the pin lookup and refresh).
func BenchmarkResolveSession(b *testing.B) {
	s := open(b, List{{Source: "m", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "y"}}}})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _, _ = s.Resolve("m", "/team", "session-1", nil)
	}
}
