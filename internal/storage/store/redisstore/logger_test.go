package redisstore

import (
	"context"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestRedisLogGoesToZap(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	redisLog{l: zap.New(core)}.Printf(context.Background(), "pool: failed to dial after %d attempts", 5)
	if e := logs.All(); len(e) != 1 || e[0].Message != "pool: failed to dial after 5 attempts" {
		t.Fatalf("%+v", e)
	}
}
