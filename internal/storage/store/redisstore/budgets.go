package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// spendKeep is how long a spend window stays after its end, for charges
// of requests that completed late and for clocks slightly apart.
const spendKeep = time.Hour

// spendHeld is the hash field (written '\0' in the scripts) that marks a window as held even with no
// spend (after a reset, or seeded with nothing). A user path segment
// never holds a control character, so no child is named so.
const spendHeld = "\x00"

// spendLost is the error reply of spendRead and spendAdd when the
// server has lost the windows (see Budgets).
const spendLost = "MODELGATE_SPEND_LOST"

// Budgets implements budgets.SpendStore: one hash per budget window,
// "spendn:<user path>:<period>:<start unix nanos>:<a|c>" (c for a
// per_child template), whose fields are the children's segments ("" for
// the budget's own spend) holding their spend in whole nano-USD
// (catalog.Nanos, added with HINCRBY, so sums are exact), and the held
// mark '\0': "1", or the mark of the usage records' snapshot the window
// was seeded from (budgets.SnapshotMark). The hash expires an hour after
// the window ends. (Versions before kept USD floats under "spend:";
// those keys are ignored: with no "spendn-epoch" yet, the first process
// of this version rebuilds every window from the usage records.)
//
// A server that restarts without its data loses every window at once,
// and a charge would then count a spent budget from zero. The key
// "spendn-epoch" (no expiry) tells: Restored sets it once the windows
// are seeded, and Spend, Add, Reserve, Settle and HandOver answer
// budgets.ErrSpendLost while it is missing, so that the tracker reseeds
// the windows first; Lost reads it for the tracker's probe. A new server
// lacks it too: the first process seeds and sets it.
//
// Reservations (Reserve, Settle) belong to a cell whatever its window:
// "resv:<user path>:<period>:<a|c>:<child>" is a hash of reservation id
// to nanos, with their sum under '\0', and "resv-lease:..." the sorted
// set of the ids by the expiry of their lease (server time), past which
// the next Reserve on the cell drops them.
type Budgets struct {
	c *Client
}

var _ budgets.SpendStore = (*Budgets)(nil)

// NewBudgets returns the spend store over c.
func NewBudgets(c *Client) *Budgets { return &Budgets{c: c} }

// spendKeyPrefix names the spend hashes; spendEpochKey the epoch (see
// Budgets).
const (
	spendKeyPrefix = "spendn"
	spendEpochKey  = "spendn-epoch"
)

// spendRead returns HGET KEYS[i] ARGV[i] for every i but the last key,
// "0" when unset; the last key is the epoch, whose absence is the error
// spendLost.
var spendRead = redis.NewScript(`
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local out = {}
for i = 1, #KEYS - 1 do
  out[i] = redis.call('HGET', KEYS[i], ARGV[i]) or '0'
end
return out`)

// spendAdd adds ARGV[1] (nanos) to field ARGV[2i] of KEYS[i], sets its expiry to
// ARGV[2i+1] (unix ms) and returns the new totals, for every key but the
// last, the epoch, whose absence is the error spendLost (nothing added).
var spendAdd = redis.NewScript(`
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local out = {}
for i = 1, #KEYS - 1 do
  out[i] = tostring(redis.call('HINCRBY', KEYS[i], ARGV[2*i], ARGV[1]))
  redis.call('PEXPIREAT', KEYS[i], ARGV[2*i+1])
end
return out`)

// spendSeed writes the field/value pairs of ARGV[3..] and the held mark
// ARGV[2] to KEYS[1], expiring at ARGV[1], unless KEYS[1] exists; it
// returns the hash as it is afterwards.
var spendSeed = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], '\0', ARGV[2])
  for i = 3, #ARGV, 2 do
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i+1])
  end
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])`)

// spendClear replaces KEYS[1] by a hash holding only the held mark,
// expiring at ARGV[1].
var spendClear = redis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], '\0', '1')
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1`)

// spendHandOver adds the field/value pairs (nanos) of ARGV[3..] to
// KEYS[1], expiring at ARGV[1], when its mark (the held field; "1" or
// none read "") is ARGV[2], and returns 1; else 0, adding nothing. With
// the epoch KEYS[2] missing it is the error spendLost.
var spendHandOver = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local m = redis.call('HGET', KEYS[1], '\0')
if not m or m == '1' then
  m = ''
end
if m ~= ARGV[2] then
  return 0
end
for i = 3, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i+1])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1`)

// key is the hash of window w.
func (b *Budgets) key(w budgets.SpendWindow) string {
	kind := "a"
	if w.PerChild {
		kind = "c"
	}
	return b.c.Key(spendKeyPrefix, w.Budget.UserPath, strconv.FormatInt(int64(w.Budget.Period), 10),
		strconv.FormatInt(w.Start.UnixNano(), 10), kind)
}

// epochKey marks the windows as held by this server (see Budgets).
func (b *Budgets) epochKey() string { return b.c.Key(spendEpochKey) }

// lost turns the spendLost reply into budgets.ErrSpendLost.
func lost(err error) error {
	if err != nil && strings.Contains(err.Error(), spendLost) {
		return budgets.ErrSpendLost
	}
	return err
}

// expireAt is when the hash of w expires, in unix milliseconds.
func expireAt(w budgets.SpendWindow) string {
	return strconv.FormatInt(w.End.Add(spendKeep).UnixMilli(), 10)
}

// Spend implements budgets.SpendStore in one script call.
func (b *Budgets) Spend(ctx context.Context, cells []budgets.SpendCell) ([]float64, error) {
	keys := make([]string, len(cells), len(cells)+1)
	args := make([]any, len(cells))
	for i, c := range cells {
		keys[i], args[i] = b.key(c.Window), c.Child
	}
	res, err := spendRead.Run(ctx, b.c.R, append(keys, b.epochKey()), args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: reading budget spend: %w", lost(err))
	}
	return floats(res, len(cells))
}

// Add implements budgets.SpendStore in one script call.
func (b *Budgets) Add(ctx context.Context, cells []budgets.SpendCell, cost float64) ([]float64, error) {
	keys := make([]string, len(cells), len(cells)+1)
	args := make([]any, 1, 1+2*len(cells))
	args[0] = nanosArg(catalog.NanosOf(cost))
	for i, c := range cells {
		keys[i] = b.key(c.Window)
		args = append(args, c.Child, expireAt(c.Window))
	}
	res, err := spendAdd.Run(ctx, b.c.R, append(keys, b.epochKey()), args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: charging budget spend: %w", lost(err))
	}
	return floats(res, len(cells))
}

// Windows implements budgets.SpendStore in one pipeline of HGETALLs.
func (b *Budgets) Windows(ctx context.Context, ws []budgets.SpendWindow) ([]map[string]float64, error) {
	cmds := make([]*redis.MapStringStringCmd, len(ws))
	_, err := b.c.R.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, w := range ws {
			cmds[i] = p.HGetAll(ctx, b.key(w))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redis: reading budget spend: %w", err)
	}
	out := make([]map[string]float64, len(ws))
	for i, c := range cmds {
		h := c.Val()
		if len(h) == 0 {
			continue
		}
		if out[i], err = spendMap(h); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Seed implements budgets.SpendStore in one script call.
func (b *Budgets) Seed(ctx context.Context, w budgets.SpendWindow, spend map[string]float64, mark string) (map[string]float64, error) {
	args := make([]any, 2, 2+2*len(spend))
	args[0], args[1] = expireAt(w), heldMark(mark)
	for child, v := range spend {
		args = append(args, child, nanosArg(catalog.NanosOf(v)))
	}
	res, err := spendSeed.Run(ctx, b.c.R, []string{b.key(w)}, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: seeding budget spend: %w", err)
	}
	if len(res)%2 != 0 {
		return nil, fmt.Errorf("redis: seeding budget spend: odd reply of %d items", len(res))
	}
	m := make(map[string]string, len(res)/2)
	for i := 0; i < len(res); i += 2 {
		m[res[i]] = res[i+1]
	}
	return spendMap(m)
}

// Mark implements budgets.SpendStore.
func (b *Budgets) Mark(ctx context.Context, w budgets.SpendWindow) (string, error) {
	m, err := b.c.R.HGet(ctx, b.key(w), spendHeld).Result()
	if errors.Is(err, redis.Nil) || m == "1" {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("redis: reading budget spend: %w", err)
	}
	return m, nil
}

// HandOver implements budgets.SpendStore in one script call.
func (b *Budgets) HandOver(ctx context.Context, w budgets.SpendWindow, spend map[string]catalog.Nanos, mark string) (bool, error) {
	args := make([]any, 2, 2+2*len(spend))
	args[0], args[1] = expireAt(w), mark
	for child, v := range spend {
		if v > 0 {
			args = append(args, child, nanosArg(v))
		}
	}
	n, err := spendHandOver.Run(ctx, b.c.R, []string{b.key(w), b.epochKey()}, args...).Int()
	if err != nil {
		return false, fmt.Errorf("redis: handing over budget spend: %w", lost(err))
	}
	return n == 1, nil
}

// Lost implements budgets.SpendStore: the epoch key is missing.
func (b *Budgets) Lost(ctx context.Context) (bool, error) {
	n, err := b.c.R.Exists(ctx, b.epochKey()).Result()
	if err != nil {
		return false, fmt.Errorf("redis: reading the budget spend epoch: %w", err)
	}
	return n == 0, nil
}

// heldMark is the held field's value for mark.
func heldMark(mark string) string {
	if mark == "" {
		return "1"
	}
	return mark
}

// nanosArg is n as a script argument.
func nanosArg(n catalog.Nanos) string { return strconv.FormatInt(int64(n), 10) }

// Restored implements budgets.SpendStore: it sets the epoch key.
func (b *Budgets) Restored(ctx context.Context) error {
	if err := b.c.R.Set(ctx, b.epochKey(), "1", 0).Err(); err != nil {
		return fmt.Errorf("redis: marking budget spend restored: %w", err)
	}
	return nil
}

// Clear implements budgets.SpendStore in one script call.
func (b *Budgets) Clear(ctx context.Context, w budgets.SpendWindow) error {
	if err := spendClear.Run(ctx, b.c.R, []string{b.key(w)}, expireAt(w)).Err(); err != nil {
		return fmt.Errorf("redis: clearing budget spend: %w", err)
	}
	return nil
}

// floats parses n spends in nanos into USD.
func floats(res []string, n int) ([]float64, error) {
	if len(res) != n {
		return nil, fmt.Errorf("redis: budget spend: %d values for %d cells", len(res), n)
	}
	out := make([]float64, n)
	for i, s := range res {
		v, err := parseNanos(s)
		if err != nil {
			return nil, err
		}
		out[i] = v.Float()
	}
	return out, nil
}

// parseNanos parses a spend field.
func parseNanos(s string) (catalog.Nanos, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("redis: budget spend %q: %w", s, err)
	}
	return catalog.Nanos(v), nil
}

// spendMap parses a window hash, leaving out the held mark.
func spendMap(h map[string]string) (map[string]float64, error) {
	out := make(map[string]float64, len(h))
	for k, s := range h {
		if k == spendHeld {
			continue
		}
		v, err := parseNanos(s)
		if err != nil {
			return nil, err
		}
		out[k] = v.Float()
	}
	return out, nil
}
