package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// libraryLogEvery is the least time between two of go-redis's own log
// lines: while a server is down the library logs every failed dial, which
// is several lines a second per process.
const libraryLogEvery = time.Minute

// redisLog carries go-redis's own log lines (connection pool dial
// failures while the server is down) into the gateway's log, as warnings
// in its format, instead of plain text on standard error among the JSON
// lines. The first line is logged; the next ones only once libraryLogEvery
// has passed since the last logged, with how many were left out. The
// stores' own breakers log when Redis goes away and when it answers again.
type redisLog struct {
	l   *zap.Logger
	now func() time.Time

	mu      sync.Mutex
	last    time.Time // when a line was last logged; zero before the first
	skipped int       // lines left out since
}

// Printf implements go-redis's logger.
func (r *redisLog) Printf(_ context.Context, format string, v ...any) {
	r.mu.Lock()
	now := r.now()
	if !r.last.IsZero() && now.Sub(r.last) < libraryLogEvery {
		r.skipped++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped
	r.last, r.skipped = now, 0
	r.mu.Unlock()
	fields := []zap.Field{}
	if skipped > 0 {
		fields = append(fields, zap.Int("similar_lines_left_out", skipped))
	}
	r.l.Warn(fmt.Sprintf(format, v...), fields...)
}

// setLogger is done once per process: go-redis's logger is global.
var setLogger sync.Once

// routeLibraryLog sends go-redis's log to l (the first client's logger;
// the library has one for the whole process).
func routeLibraryLog(l *zap.Logger) {
	setLogger.Do(func() { redis.SetLogger(&redisLog{l: l.Named("go-redis"), now: time.Now}) })
}
