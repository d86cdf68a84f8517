package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
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
// "spend:<user path>:<period>:<start unix nanos>:<a|c>" (c for a
// per_child template), whose fields are the children's segments ("" for
// the budget's own spend) holding their spend as decimal strings. The
// hash expires an hour after the window ends.
//
// A server that restarts without its data loses every window at once,
// and a charge would then count a spent budget from zero. The key
// "spend-epoch" (no expiry) tells: Restored sets it once the windows are
// seeded, and Spend and Add answer budgets.ErrSpendLost while it is
// missing, so that the tracker reseeds the windows first. A new server
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

// spendAdd adds ARGV[1] to field ARGV[2i] of KEYS[i], sets its expiry to
// ARGV[2i+1] (unix ms) and returns the new totals, for every key but the
// last, the epoch, whose absence is the error spendLost (nothing added).
var spendAdd = redis.NewScript(`
if redis.call('EXISTS', KEYS[#KEYS]) == 0 then
  return redis.error_reply('` + spendLost + `')
end
local out = {}
for i = 1, #KEYS - 1 do
  out[i] = redis.call('HINCRBYFLOAT', KEYS[i], ARGV[2*i], ARGV[1])
  redis.call('PEXPIREAT', KEYS[i], ARGV[2*i+1])
end
return out`)

// spendSeed writes the field/value pairs of ARGV[2..] and the held mark
// to KEYS[1], expiring at ARGV[1], unless KEYS[1] exists; it returns the
// hash as it is afterwards.
var spendSeed = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], '\0', '1')
  for i = 2, #ARGV, 2 do
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

// key is the hash of window w.
func (b *Budgets) key(w budgets.SpendWindow) string {
	kind := "a"
	if w.PerChild {
		kind = "c"
	}
	return b.c.Key("spend", w.Budget.UserPath, strconv.FormatInt(int64(w.Budget.Period), 10),
		strconv.FormatInt(w.Start.UnixNano(), 10), kind)
}

// epochKey marks the windows as held by this server (see Budgets).
func (b *Budgets) epochKey() string { return b.c.Key("spend-epoch") }

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
	args[0] = strconv.FormatFloat(cost, 'f', -1, 64)
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
func (b *Budgets) Seed(ctx context.Context, w budgets.SpendWindow, spend map[string]float64) (map[string]float64, error) {
	args := make([]any, 1, 1+2*len(spend))
	args[0] = expireAt(w)
	for child, v := range spend {
		args = append(args, child, strconv.FormatFloat(v, 'f', -1, 64))
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

// floats parses n decimal strings.
func floats(res []string, n int) ([]float64, error) {
	if len(res) != n {
		return nil, fmt.Errorf("redis: budget spend: %d values for %d cells", len(res), n)
	}
	out := make([]float64, n)
	for i, s := range res {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("redis: budget spend %q: %w", s, err)
		}
		out[i] = v
	}
	return out, nil
}

// spendMap parses a window hash, leaving out the held mark.
func spendMap(h map[string]string) (map[string]float64, error) {
	out := make(map[string]float64, len(h))
	for k, s := range h {
		if k == spendHeld {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("redis: budget spend %q: %w", s, err)
		}
		out[k] = v
	}
	return out, nil
}
