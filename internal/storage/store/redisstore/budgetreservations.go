package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// resvKeep is how long a cell's reservation keys outlive the last lease
// they hold.
const resvKeep = time.Minute

// spendReserve is budgets.SpendStore's Reserve. KEYS are, per cell, its
// spend hash, its reservation hash (id → nanos, '\0' → their sum) and its
// lease set (id scored by its expiry in unix ms), then the epoch key.
// ARGV[1] is the amount in nanos, ARGV[2] the reservation id, ARGV[3]
// the lease in ms, then per cell i ARGV[2+2i] its child and ARGV[3+2i]
// its limit in nanos. Expired leases are dropped first; the reply lists
// the (0-based) cells that refuse, and nothing is held unless it is
// empty. The server's clock dates the leases, so the processes' clocks
// need not agree.
var spendReserve = redis.NewScript(spendReserveLua)

// spendReserveLua is spendReserve's body.
var spendReserveLua = `
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local n = (#KEYS - 1) / 3
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local amount = tonumber(ARGV[1])
local refused = {}
for i = 1, n do
  local h, z = KEYS[3*i-1], KEYS[3*i]
  local gone = redis.call('ZRANGEBYSCORE', z, '-inf', now)
  if #gone > 0 then
    for _, id in ipairs(gone) do
      local a = redis.call('HGET', h, id)
      if a then
        redis.call('HINCRBY', h, '\0', '-' .. a)
        redis.call('HDEL', h, id)
      end
    end
    redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
  end
  local held = tonumber(redis.call('HGET', h, '\0') or '0')
  local spent = tonumber(redis.call('HGET', KEYS[3*i-2], ARGV[2+2*i]) or '0')
  local limit = tonumber(ARGV[3+2*i])
  if spent >= limit or spent + held + amount > limit then
    refused[#refused+1] = i - 1
  end
end
if #refused > 0 then
  return refused
end
local exp = now + tonumber(ARGV[3])
local keep = exp + ` + strconv.FormatInt(resvKeep.Milliseconds(), 10) + `
for i = 1, n do
  local h, z = KEYS[3*i-1], KEYS[3*i]
  redis.call('HSET', h, ARGV[2], ARGV[1])
  redis.call('HINCRBY', h, '\0', ARGV[1])
  redis.call('ZADD', z, exp, ARGV[2])
  for _, k in ipairs({h, z}) do
    local ttl = redis.call('PTTL', k)
    if ttl < 0 or now + ttl < keep then
      redis.call('PEXPIREAT', k, keep)
    end
  end
end
return refused`

// spendSettle is budgets.SpendStore's Settle. KEYS are as spendReserve's;
// ARGV[1] is the reservation id, then per cell i ARGV[3i-1] its child,
// ARGV[3i] the cost to add (nanos) and ARGV[3i+1] the spend hash's expiry
// (unix ms). The reservation is released where it is still held, the
// cost added where it is above 0, and the cells' spend returned.
var spendSettle = redis.NewScript(`
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local n = (#KEYS - 1) / 3
local id = ARGV[1]
local out = {}
for i = 1, n do
  local s, h, z = KEYS[3*i-2], KEYS[3*i-1], KEYS[3*i]
  local a = redis.call('HGET', h, id)
  if a then
    redis.call('HINCRBY', h, '\0', '-' .. a)
    redis.call('HDEL', h, id)
    redis.call('ZREM', z, id)
  end
  if tonumber(ARGV[3*i]) > 0 then
    out[i] = tostring(redis.call('HINCRBY', s, ARGV[3*i-1], ARGV[3*i]))
    redis.call('PEXPIREAT', s, ARGV[3*i+1])
  else
    out[i] = redis.call('HGET', s, ARGV[3*i-1]) or '0'
  end
end
return out`)

// resvKeys are the reservation hash and lease set of cell c, which
// belong to the cell whatever its window.
func (b *Budgets) resvKeys(c budgets.SpendCell) (hash, lease string) {
	kind := "a"
	if c.Window.PerChild {
		kind = "c"
	}
	p := strconv.FormatInt(int64(c.Window.Budget.Period), 10)
	return b.c.Key("resv", c.Window.Budget.UserPath, p, kind, c.Child),
		b.c.Key("resv-lease", c.Window.Budget.UserPath, p, kind, c.Child)
}

// cellKeys lists, per cell, its spend hash and reservation keys, then
// the epoch key.
func (b *Budgets) cellKeys(cells []budgets.SpendCell) []string {
	keys := make([]string, 0, 3*len(cells)+1)
	for _, c := range cells {
		h, z := b.resvKeys(c)
		keys = append(keys, b.key(c.Window), h, z)
	}
	return append(keys, b.epochKey())
}

// Reserve implements budgets.SpendStore in one script call.
func (b *Budgets) Reserve(ctx context.Context, cells []budgets.SpendCell, limits []catalog.Nanos, id string, amount catalog.Nanos, lease time.Duration) ([]int, error) {
	keys, args, err := b.reserveCall(cells, limits, id, amount, lease)
	if err != nil {
		return nil, err
	}
	return reserveAnswer(spendReserve.Run(ctx, b.c.R, keys, args...))
}

// reserveCall returns the keys and arguments of spendReserve for Reserve.
func (b *Budgets) reserveCall(cells []budgets.SpendCell, limits []catalog.Nanos, id string, amount catalog.Nanos, lease time.Duration) ([]string, []any, error) {
	if len(limits) != len(cells) {
		return nil, nil, fmt.Errorf("redis: reserving budget spend: %d limits for %d cells", len(limits), len(cells))
	}
	args := make([]any, 3, 3+2*len(cells))
	args[0], args[1], args[2] = strconv.FormatInt(int64(amount), 10), id, strconv.FormatInt(max(lease.Milliseconds(), 1), 10)
	for i, c := range cells {
		args = append(args, c.Child, strconv.FormatInt(int64(limits[i]), 10))
	}
	return b.cellKeys(cells), args, nil
}

// reserveAnswer reads spendReserve's reply: the cells that refused.
func reserveAnswer(cmd *redis.Cmd) ([]int, error) {
	res, err := cmd.Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("redis: reserving budget spend: %w", lost(err))
	}
	out := make([]int, len(res))
	for i, v := range res {
		out[i] = int(v)
	}
	return out, nil
}

// Settle implements budgets.SpendStore in one script call.
func (b *Budgets) Settle(ctx context.Context, cells []budgets.SpendCell, id string, costs []float64) ([]float64, error) {
	keys, args, err := b.settleCall(cells, id, costs)
	if err != nil {
		return nil, err
	}
	return settleAnswer(spendSettle.Run(ctx, b.c.R, keys, args...), len(cells))
}

// settleCall returns the keys and arguments of spendSettle for Settle.
func (b *Budgets) settleCall(cells []budgets.SpendCell, id string, costs []float64) ([]string, []any, error) {
	if len(costs) != len(cells) {
		return nil, nil, fmt.Errorf("redis: settling budget spend: %d costs for %d cells", len(costs), len(cells))
	}
	args := make([]any, 1, 1+3*len(cells))
	args[0] = id
	for i, c := range cells {
		args = append(args, c.Child, nanosArg(catalog.NanosOf(costs[i])), expireAt(c.Window))
	}
	return b.cellKeys(cells), args, nil
}

// settleAnswer reads spendSettle's reply: the n cells' new spend.
func settleAnswer(cmd *redis.Cmd, n int) ([]float64, error) {
	res, err := cmd.StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: settling budget spend: %w", lost(err))
	}
	return floats(res, n)
}
