package redisstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

var _ limits.SharedChildren = (*RateLimits)(nil)

// childScanCount is the COUNT hint of each SCAN call of ChildCounters.
const childScanCount = 1000

// childScanCalls bounds the SCAN calls of one ChildCounters: the keys
// examined are at most about childScanCalls × childScanCount.
const childScanCalls = 256

// ChildCounters implements limits.SharedChildren with SCAN over the
// counter keys "rl:w:<ruleID>:*" (concurrent: "rl:c:<ruleID>:*"), never
// KEYS: at most limit children and childScanCalls calls.
func (s *RateLimits) ChildCounters(ctx context.Context, ruleID string, concurrent bool, limit int) ([]string, error) {
	kind := "w"
	if concurrent {
		kind = "c"
	}
	prefix := s.c.Key("rl", kind, ruleID+":")
	pattern := globEscape(prefix) + "*"
	var out []string
	var cursor uint64
	for calls := 0; calls < childScanCalls && len(out) < limit; calls++ {
		keys, next, err := s.r.Scan(ctx, cursor, pattern, childScanCount).Result()
		if err != nil {
			return out, fmt.Errorf("redis rate-limit children: %w", err)
		}
		for _, k := range keys {
			child, ok := strings.CutPrefix(k, prefix)
			if ok && child != "" && len(out) < limit {
				out = append(out, child)
			}
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	return out, nil
}

// ResetChild implements limits.SharedChildren: it deletes the child's
// window hash.
func (s *RateLimits) ResetChild(ctx context.Context, rule limits.Key, child string) error {
	if err := s.r.Unlink(ctx, s.c.Key("rl", "w", rule.SharedID()+":"+child)).Err(); err != nil {
		return fmt.Errorf("redis rate-limit reset: %w", err)
	}
	return nil
}
