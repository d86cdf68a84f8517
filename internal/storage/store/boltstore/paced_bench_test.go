package boltstore

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/modelgate/modelgate/internal/storage/store"
)

// proseBody returns a chat request body of about n bytes whose message is
// words drawn from a vocabulary of 5,000 with a Zipf law, as words are
// used in prose: S2 shrinks it about 1.8 times, as it does prose or code,
// where repeated filler shrinks hundreds of times.
func proseBody(n int) json.RawMessage {
	r := rand.New(rand.NewSource(1))
	vocab := make([]string, 5000)
	for i := range vocab {
		w := make([]byte, 2+r.Intn(8))
		for j := range w {
			w[j] = byte('a' + r.Intn(26))
		}
		vocab[i] = string(w)
	}
	z := rand.NewZipf(r, 1.01, 1, uint64(len(vocab)-1))
	var sb strings.Builder
	for sb.Len() < n-80 {
		sb.WriteString(vocab[z.Uint64()])
		sb.WriteByte(' ')
	}
	return json.RawMessage(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"` + sb.String() + `"}]}`)
}

// randomBody returns a JSON request body of about n bytes that does not
// compress.
func randomBody(n int) json.RawMessage {
	raw := make([]byte, n*3/4)
	_, _ = crand.Read(raw)
	return json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"` + base64.StdEncoding.EncodeToString(raw) + `"}]}`)
}

// BenchmarkWriterPaced64KiB queues entries with 64 KiB request bodies and
// their usage records at a steady 800 entries/s, as the load harness's
// 64 KiB stream cells do, and reports the CPU the process spends per entry
// (producer and writer) and the commits per second, for bodies of
// repeated filler (the harness's), of prose-like text and of random
// bytes.
func BenchmarkWriterPaced64KiB(b *testing.B) {
	const rate = 800
	for _, bc := range []struct {
		name string
		body json.RawMessage
	}{{"filler", jsonBody(64 << 10)}, {"prose", proseBody(64 << 10)}, {"random", randomBody(48 << 10)}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := store.Open(store.Options{Path: filepath.Join(b.TempDir(), "paced.db")})
			if err != nil {
				b.Fatal(err)
			}
			a := NewAudit(s)
			b.ResetTimer()
			cpu0 := processCPU()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if d := time.Until(start.Add(time.Duration(i) * time.Second / rate)); d > 0 {
					time.Sleep(d)
				}
				e, u := benchEntry(time.Now(), i, bytes.Clone(bc.body))
				e.Data.ResponseBody = nil
				if !a.AppendEntry(e) || !a.AppendUsage(u) {
					b.Fatal("dropped")
				}
			}
			if err := s.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cpu := processCPU() - cpu0
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(s.Stats().Batches)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(len(bc.body))/float64(len(s2.Encode(nil, bc.body))), "s2-ratio")
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
