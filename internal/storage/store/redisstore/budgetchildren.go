package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

var (
	_ budgets.ReservationReader = (*Budgets)(nil)
	_ budgets.ChildClearer      = (*Budgets)(nil)
)

// spendReserved sums, per cell, the reservations whose lease has not
// expired (server time): KEYS are, per cell, its reservation hash and its
// lease set. Nothing is written; expired leases are dropped by the next
// Reserve on the cell.
var spendReserved = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 1, #KEYS / 2 do
  local h, z = KEYS[2*i-1], KEYS[2*i]
  local sum = 0
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', z, '(' .. now, '+inf')) do
    sum = sum + tonumber(redis.call('HGET', h, id) or '0')
  end
  out[i] = sum
end
return out`)

// spendClearChild drops field ARGV[1] of the window hash KEYS[1] and
// keeps the window held (the held mark set, expiring at ARGV[2]), when
// the window exists; a window the store does not hold is left to be
// seeded.
var spendClearChild = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[1], '\0', '1')
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return 1`)

// Reserved implements budgets.ReservationReader in one script call.
func (b *Budgets) Reserved(ctx context.Context, cells []budgets.SpendCell) ([]catalog.Nanos, error) {
	if len(cells) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, 2*len(cells))
	for _, c := range cells {
		h, z := b.resvKeys(c)
		keys = append(keys, h, z)
	}
	res, err := spendReserved.Run(ctx, b.c.R, keys).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("redis: reading budget reservations: %w", err)
	}
	if len(res) != len(cells) {
		return nil, fmt.Errorf("redis: budget reservations: %d values for %d cells", len(res), len(cells))
	}
	out := make([]catalog.Nanos, len(res))
	for i, v := range res {
		out[i] = catalog.Nanos(max(v, 0))
	}
	return out, nil
}

// ClearChild implements budgets.ChildClearer in one script call.
func (b *Budgets) ClearChild(ctx context.Context, c budgets.SpendCell) error {
	if err := spendClearChild.Run(ctx, b.c.R, []string{b.key(c.Window)}, c.Child, expireAt(c.Window)).Err(); err != nil {
		return fmt.Errorf("redis: clearing a child's budget spend: %w", err)
	}
	return nil
}
