package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelgate/modelgate/bench/internal/stats"
	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// generator runs the load for one configuration: closed loop, or at a
// fixed rate when cfg.rate is set.
type generator struct {
	cfg    config
	client *http.Client
	body   []byte
	marks  streamMarks
	// tickets numbers the requests of a fixed-rate run in the order of
	// their scheduled starts.
	tickets atomic.Int64
}

func newGenerator(cfg config) *generator {
	tr := &http.Transport{
		Proxy:               nil, // loopback targets only; ignore HTTP_PROXY
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        cfg.concurrency * 2,
		MaxIdleConnsPerHost: cfg.concurrency * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // servers would not compress; keep Accept-Encoding off for all targets alike
	}
	return &generator{
		cfg:    cfg,
		client: &http.Client{Transport: tr, Timeout: cfg.timeout},
		body:   requestBody(cfg.model, cfg.maxTokens, cfg.stream, cfg.bodySize),
		marks:  marksFor(cfg.shape),
	}
}

// outcome is what one request produced.
type outcome struct {
	status int // 0 on transport error
	err    error
	total  time.Duration // to the last byte
	ttft   time.Duration // streams: to the first event with answer text
	bytes  int64
}

// tally is one worker's measurements; merged at the end.
type tally struct {
	latency, ttft *stats.Recorder
	ok, errs      int
	late          int // measured requests of a fixed-rate run that started late
	sent          int // every request started, warm-up included
	answered      int // of sent, those with a status line back
	non2xx        int
	codes         map[int]int
	firstErr      string
	bytes         int64
	lastDone      time.Time
}

func (g *generator) run(ctx context.Context) (*stats.Result, error) {
	start := time.Now()
	measureFrom := start.Add(g.cfg.warmup)
	end := measureFrom.Add(g.cfg.duration)
	// In-flight requests at the end may take up to one timeout.
	ctx, cancel := context.WithDeadline(ctx, end.Add(g.cfg.timeout))
	defer cancel()

	tallies := make([]*tally, g.cfg.concurrency)
	var wg sync.WaitGroup
	for i := range tallies {
		t := &tally{latency: stats.NewRecorder(4096), ttft: stats.NewRecorder(4096), codes: map[int]int{}}
		tallies[i] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.worker(ctx, t, start, measureFrom, end)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil && time.Now().Before(end) {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	return g.result(tallies, measureFrom), nil
}

// worker sends requests until end, recording those that start at or
// after measureFrom: back to back, or at a fixed rate each at the start
// of the next ticket it takes (see ticketAt).
func (g *generator) worker(ctx context.Context, t *tally, start, measureFrom, end time.Time) {
	rd := bufio.NewReaderSize(nil, 32<<10)
	buf := make([]byte, 32<<10)
	for ctx.Err() == nil {
		var due time.Time
		if g.cfg.rate > 0 {
			due = ticketAt(start, g.tickets.Add(1)-1, g.cfg.rate)
			if !due.Before(end) || !providers.SleepUntilCtx(ctx, due) {
				return
			}
		}
		now := time.Now()
		if !now.Before(end) {
			return
		}
		if !due.IsZero() && !now.Before(measureFrom) && now.Sub(due) > time.Millisecond {
			t.late++
		}
		o := g.do(ctx, rd, buf)
		t.sent++
		if o.status != 0 {
			t.answered++
		}
		if now.Before(measureFrom) {
			continue
		}
		t.lastDone = time.Now()
		if o.status != 0 {
			t.codes[o.status]++
		}
		switch {
		case o.err != nil:
			t.errs++
			if t.firstErr == "" {
				t.firstErr = o.err.Error()
			}
		case o.status < 200 || o.status > 299:
			t.non2xx++
			if t.firstErr == "" {
				t.firstErr = "status " + strconv.Itoa(o.status)
			}
		default:
			t.ok++
			t.bytes += o.bytes
			t.latency.Add(o.total)
			if g.cfg.stream {
				t.ttft.Add(o.ttft)
			}
		}
	}
}

// ticketAt is when the k-th request (from 0) of a run at rate requests
// a second that began at start is due.
func ticketAt(start time.Time, k int64, rate float64) time.Time {
	return start.Add(time.Duration(float64(k) * float64(time.Second) / rate))
}

// do sends one request and reads the whole answer.
func (g *generator) do(ctx context.Context, rd *bufio.Reader, buf []byte) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.cfg.url, bytes.NewReader(g.body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if g.cfg.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+g.cfg.apiKey)
	}
	if g.cfg.shape == "messages" {
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	start := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	o := outcome{status: resp.StatusCode}
	if resp.StatusCode/100 != 2 || !g.cfg.stream {
		o.bytes, o.err = io.CopyBuffer(io.Discard, resp.Body, buf)
		o.total = time.Since(start)
		return o
	}
	rd.Reset(resp.Body)
	o.bytes, o.ttft, o.err = g.marks.read(rd, start)
	o.total = time.Since(start)
	return o
}

func (g *generator) result(tallies []*tally, measureFrom time.Time) *stats.Result {
	res := &stats.Result{
		URL:         g.cfg.url,
		Shape:       g.cfg.shape,
		Stream:      g.cfg.stream,
		Concurrency: g.cfg.concurrency,
		Rate:        g.cfg.rate,
		BodySize:    len(g.body),
		WarmupS:     g.cfg.warmup.Seconds(),
		DurationS:   g.cfg.duration.Seconds(),
		StatusCodes: map[string]int{},
	}
	lat, ttft := stats.NewRecorder(0), stats.NewRecorder(0)
	var last time.Time
	var bytesRead int64
	for _, t := range tallies {
		lat.Merge(t.latency)
		ttft.Merge(t.ttft)
		res.OK += t.ok
		res.Errors += t.errs
		res.Non2xx += t.non2xx
		res.LateStarts += t.late
		res.Sent += t.sent
		res.Answered += t.answered
		bytesRead += t.bytes
		for code, n := range t.codes {
			res.StatusCodes[strconv.Itoa(code)] += n
		}
		if res.FirstError == "" {
			res.FirstError = t.firstErr
		}
		if t.lastDone.After(last) {
			last = t.lastDone
		}
	}
	if !last.IsZero() {
		elapsed := last.Sub(measureFrom).Seconds()
		res.ElapsedS = math.Round(elapsed*1000) / 1000
		if elapsed > 0 {
			res.ThroughputRPS = math.Round(float64(res.OK)/elapsed*10) / 10
		}
	}
	if res.OK > 0 {
		res.ResponseBytes = bytesRead / int64(res.OK)
	}
	res.Latency = lat.Summary()
	if g.cfg.stream {
		res.TTFT = ttft.Summary()
		res.TTLT = res.Latency
	}
	return res
}

// streamMarks are the byte patterns that mark, in one server-sent event
// line, answer text and the end of the stream.
type streamMarks struct {
	text   []byte // the line carries answer text when it contains this...
	empty  []byte // ...unless it contains this (an empty text delta)
	finish []byte // a complete stream contains this line prefix
}

func marksFor(shape string) streamMarks {
	if shape == "messages" {
		return streamMarks{text: []byte(`"text_delta"`), empty: []byte(`"text":""`), finish: []byte("event: message_stop")}
	}
	return streamMarks{text: []byte(`"content":"`), empty: []byte(`"content":""`), finish: []byte("data: [DONE]")}
}

// errTruncated reports a stream that ended without its final event.
var errTruncated = errors.New("stream ended without its final event")

// read consumes a stream, returning the bytes read and the time from start
// to the first data line carrying answer text. A line longer than the
// reader's buffer is gathered before it is inspected.
func (m streamMarks) read(rd *bufio.Reader, start time.Time) (n int64, ttft time.Duration, err error) {
	finished := false
	var long []byte
	for {
		piece, err := rd.ReadSlice('\n')
		n += int64(len(piece))
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, piece...)
			continue
		}
		line := piece
		if len(long) > 0 {
			long = append(long, piece...)
			line = long
		}
		if ttft == 0 && bytes.HasPrefix(line, []byte("data:")) &&
			bytes.Contains(line, m.text) && !bytes.Contains(line, m.empty) {
			ttft = time.Since(start)
		}
		if bytes.HasPrefix(line, m.finish) {
			finished = true
		}
		long = long[:0]
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			if !finished {
				return n, ttft, errTruncated
			}
			if ttft == 0 {
				return n, ttft, errors.New("stream carried no answer text")
			}
			return n, ttft, nil
		default:
			return n, ttft, err
		}
	}
}
