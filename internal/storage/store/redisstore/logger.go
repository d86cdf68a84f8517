package redisstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// redisLog carries go-redis's own log lines (connection pool dial
// failures while the server is down) into the gateway's log, as warnings
// in its format, instead of plain text on standard error among the JSON
// lines.
type redisLog struct{ l *zap.Logger }

// Printf implements go-redis's logger.
func (r redisLog) Printf(_ context.Context, format string, v ...any) {
	r.l.Warn(fmt.Sprintf(format, v...))
}

// setLogger is done once per process: go-redis's logger is global.
var setLogger sync.Once

// routeLibraryLog sends go-redis's log to l (the first client's logger;
// the library has one for the whole process).
func routeLibraryLog(l *zap.Logger) {
	setLogger.Do(func() { redis.SetLogger(redisLog{l: l.Named("go-redis")}) })
}
