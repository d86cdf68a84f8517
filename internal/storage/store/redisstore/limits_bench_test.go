package redisstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

const benchCap = 1 << 50

// benchRules are three rules matching every benchmark request: a root
// window, a per-child template window and a concurrency cap; slots
// (concurrent) and token caps (tokens) can be left out.
func benchRules(concurrent, tokens bool) []limits.Rule {
	var tok int64
	if tokens {
		tok = benchCap
	}
	rules := []limits.Rule{
		{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: benchCap, MaxTokens: tok},
		{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodHour, MaxRequests: benchCap, PerChild: true},
	}
	if concurrent {
		rules = append(rules, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/customers", Period: limits.PeriodConcurrent, MaxRequests: benchCap})
	}
	return rules
}

func benchPaths() []string {
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = fmt.Sprintf("/customers/c%d/app", i)
	}
	return paths
}

// runAdmit admits and finishes requests on e, sequentially or in parallel.
func runAdmit(b *testing.B, e *limits.Engine, parallel bool) {
	paths := benchPaths()
	for _, p := range paths { // partitions exist before timing
		a, rej := e.AdmitUserPath(p)
		if rej != nil {
			b.Fatal(rej)
		}
		a.Done(10)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for i := 0; i < b.N; i++ {
			a, rej := e.AdmitUserPath(paths[i%len(paths)])
			if rej != nil {
				b.Fatal(rej)
			}
			a.Done(10)
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			a, rej := e.AdmitUserPath(paths[i%len(paths)])
			if rej != nil {
				b.Error(rej)
				return
			}
			a.Done(10)
			i++
		}
	})
}

// BenchmarkAdmit compares one admission plus Done on the in-memory
// engine and through Redis. "windows" matches two window rules without
// token caps: Done needs no Redis call, so the admission is exactly one
// round trip. "slots+tokens" adds a concurrency rule and a token cap: Done
// releases the lease and charges the tokens in a second call.
func BenchmarkAdmit(b *testing.B) {
	for _, shape := range []struct {
		name               string
		concurrent, tokens bool
	}{{"windows", false, false}, {"slots+tokens", true, true}} {
		rules := benchRules(shape.concurrent, shape.tokens)
		b.Run("memory/"+shape.name, func(b *testing.B) {
			e, err := limits.New(limits.Options{TokensEnforced: true, QuotaTemplates: true})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if err := e.SetConfigRules(rules); err != nil {
				b.Fatal(err)
			}
			runAdmit(b, e, false)
		})
		for _, parallel := range []bool{false, true} {
			name := "redis/" + shape.name
			if parallel {
				name += "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				url, prefix := redistest.New(b)
				e, _ := newSharedEngine(b, engineOpts{url: url, prefix: prefix, now: time.Now}, rules...)
				runAdmit(b, e, parallel)
				b.StopTimer()
				if f := e.SharedFallbacks(); f != 0 {
					b.Fatalf("%d admissions fell back", f)
				}
			})
		}
	}
}
