package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/limits"
)

// ownBudgets returns st as a Budgets store when it is on the same client
// as s, so that its calls can share s's round trips.
func (s *RateLimits) ownBudgets(st budgets.SpendStore) (*Budgets, bool) {
	b, ok := st.(*Budgets)
	return b, ok && b.c == s.c
}

// budgetAlong returns the budget reservation that req carries along
// (limits.SharedAdmission.Along) and its store, when that store is on the
// same client as s; nil otherwise.
func (s *RateLimits) budgetAlong(req *limits.SharedAdmission) (*budgets.ReserveCall, *Budgets) {
	if req.Along == nil {
		return nil, nil
	}
	if c, ok := req.Along.Call.(*budgets.ReserveCall); ok {
		if b, ok := s.ownBudgets(c.Store); ok {
			return c, b
		}
	}
	return nil, nil
}

// settleAlong returns the budget settlement that rel carries along
// (limits.SharedRelease.Along) and its store, when that store is on the
// same client as s; nil otherwise.
func (s *RateLimits) settleAlong(rel *limits.SharedRelease) (*budgets.SettleCall, *Budgets) {
	if rel.Along == nil {
		return nil, nil
	}
	if c, ok := rel.Along.Call.(*budgets.SettleCall); ok {
		if b, ok := s.ownBudgets(c.Store); ok {
			return c, b
		}
	}
	return nil, nil
}

// releaseSettling makes the release of keys and args and the settlement
// sc in one pipeline (one round trip; they do not depend on each other),
// records the settlement's answer in sc and rel.Along, and returns the
// release's error. A script the server does not hold yet (it restarted)
// is sent again on its own.
func (s *RateLimits) releaseSettling(ctx context.Context, rel *limits.SharedRelease, sc *budgets.SettleCall, b *Budgets, keys []string, args []any) error {
	sKeys, sArgs, err := b.settleCall(sc.Cells, sc.ID, sc.Costs)
	if err != nil {
		return releaseScript.Run(ctx, s.r, keys, args...).Err()
	}
	pipe := s.r.Pipeline()
	rc := releaseScript.EvalSha(ctx, pipe, keys, args...)
	bc := spendSettle.EvalSha(ctx, pipe, sKeys, sArgs...)
	_, _ = pipe.Exec(ctx) // each reply carries its own error
	if noScript(rc.Err()) {
		rc = releaseScript.Run(ctx, s.r, keys, args...)
	}
	if noScript(bc.Err()) {
		bc = spendSettle.Run(ctx, s.r, sKeys, sArgs...)
	}
	sc.Got, sc.Err = settleAnswer(bc, len(sc.Cells))
	rel.Along.Made = true
	return rc.Err()
}

// noScript reports a NOSCRIPT error: the server does not hold the script.
func noScript(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT")
}

// admitReserving makes the admission of keys and args together with the
// reservation bc in one script call (admitReserving), records the
// reservation's outcome in bc and req.Along, and returns the admission's
// reply.
func (s *RateLimits) admitReserving(ctx context.Context, req *limits.SharedAdmission, bc *budgets.ReserveCall, b *Budgets, keys []string, args []any) ([]int64, error) {
	bKeys, bArgs, err := b.reserveCall(bc.Cells, bc.Limits, bc.ID, bc.Amount, bc.Lease)
	if err != nil {
		return nil, err // a programming error: neither is made
	}
	all := make([]any, 0, 2+len(bArgs)+len(args))
	all = append(append(append(all, len(bKeys), len(bArgs)), bArgs...), args...)
	res, err := admitReserving.Run(ctx, s.r, append(bKeys, keys...), all...).Int64Slice()
	req.Along.Made = true
	if err != nil {
		bc.Err = fmt.Errorf("redis: reserving budget spend: %w", err)
		return nil, err
	}
	if len(res) == 0 {
		err = errors.New("empty reply")
		bc.Err = fmt.Errorf("redis: reserving budget spend: %w", err)
		return nil, err
	}
	switch code := res[0]; {
	case code == -1:
		bc.Err = fmt.Errorf("redis: reserving budget spend: %w", budgets.ErrSpendLost)
	case code == -2:
		bc.Undone = true
	case code > 0:
		if int64(len(res)) < 1+code {
			err = fmt.Errorf("%d values in the reply, want at least %d", len(res), 1+code)
			bc.Err = fmt.Errorf("redis: reserving budget spend: %w", err)
			return nil, err
		}
		bc.Refused = make([]int, code)
		for i := range bc.Refused {
			bc.Refused[i] = int(res[1+i])
		}
		req.Along.Vetoed = true
		return nil, nil
	}
	return res[1:], nil
}

// admitReserving is a rate-limit admission and a budget reservation in
// one atomic step: the reservation (spendReserveLua) is tried first; a
// refused one leaves the counters alone, and a reservation whose
// admission (admitLua) is refused is given back. Neither is ever held
// without the other, so concurrent requests refused by one never take
// what the other would have given a request it admits.
//
// KEYS are the reservation's keys, then the admission's. ARGV[1] is the
// number of the reservation's keys, ARGV[2] the number of its arguments,
// then its arguments, then the admission's.
//
// Reply: a code, then, unless the reservation was refused, the
// admission's reply. The code is 0 (reserved), -1 (the spend store lost
// its windows: nothing reserved, the admission made alone), -2 (reserved
// but the admission refused: the reservation given back) or n > 0 (the
// reservation refused by n cells, whose 0-based indexes follow; no
// admission attempted).
var admitReserving = redis.NewScript(luaCommon + `
local function reserve(KEYS, ARGV)
` + spendReserveLua + `
end

local function admit(KEYS, ARGV)
` + admitLua + `
end

local function unreserve(KEYS, ARGV)
  for i = 1, (#KEYS - 1) / 3 do
    local h, z = KEYS[3*i-1], KEYS[3*i]
    if redis.call('HDEL', h, ARGV[2]) == 1 and ARGV[1] ~= '0' then
      redis.call('HINCRBY', h, '\0', '-' .. ARGV[1])
    end
    redis.call('ZREM', z, ARGV[2])
  end
end

local nb, na = tonumber(ARGV[1]), tonumber(ARGV[2])
local bk, ba, ak, aa = {}, {}, {}, {}
for i = 1, nb do bk[i] = KEYS[i] end
for i = nb + 1, #KEYS do ak[#ak + 1] = KEYS[i] end
for i = 1, na do ba[i] = ARGV[2 + i] end
for i = 3 + na, #ARGV do aa[#aa + 1] = ARGV[i] end
local out = {0}
local r = reserve(bk, ba)
if r.err then
  out[1] = -1
elseif #r > 0 then
  out[1] = #r
  for _, i in ipairs(r) do out[#out + 1] = i end
  return out
end
local a = admit(ak, aa)
if out[1] == 0 and a[1] == 0 then
  unreserve(bk, ba)
  out[1] = -2
end
for _, v in ipairs(a) do out[#out + 1] = v end
return out
`)
