package redisstore

import "github.com/redis/go-redis/v9"

// Lua scripts of the rate-limit counters (see limits.go for the key layout).
//
// A window counter is a hash: w (index of the current fixed window: Unix
// milliseconds / period), r and pr (requests of the current and previous
// window), t and pt (tokens). Scripts move it forward to the window of
// "now" the way the in-memory engine does: one window on, the current
// counts become the previous ones; further on, both are zero; a "now"
// behind the stored window (another process's clock ran ahead) counts in
// the stored window. The sliding estimate is
// used = cur + ceil(prev × (period − elapsed) / period), elapsed clamped
// to [0, period−1].
//
// A concurrency counter is a sorted set of lease ids scored by their
// expiry (Unix milliseconds).

// luaCommon holds the helpers both scripts use.
const luaCommon = `
local function num(x)
  return string.format('%.0f', x)
end

local function ceildiv(a, b)
  if a <= 0 then return 0 end
  local q = math.floor(a / b)
  if q * b < a then q = q + 1 end
  return q
end

-- load returns the window state of hash k rotated to now: w, r, pr, t, pt.
local function load(k, now, p)
  local v = redis.call('HMGET', k, 'w', 'r', 'pr', 't', 'pt')
  local w = math.floor(now / p)
  local sw = tonumber(v[1])
  if not sw then return w, 0, 0, 0, 0 end
  local r, pr, t, pt = tonumber(v[2]) or 0, tonumber(v[3]) or 0, tonumber(v[4]) or 0, tonumber(v[5]) or 0
  if w == sw + 1 then
    return w, 0, r, 0, t
  elseif w > sw + 1 then
    return w, 0, 0, 0, 0
  end
  return sw, r, pr, t, pt
end

local function store(k, p, w, r, pr, t, pt)
  redis.call('HSET', k, 'w', num(w), 'r', num(r), 'pr', num(pr), 't', num(t), 'pt', num(pt))
  redis.call('PEXPIRE', k, num(2 * p))
end
`

// admitScript admits one request under every counter of KEYS, or none.
//
// ARGV: now (ms), token caps enforced ("1"/"0"), lease id, lease time (ms),
// batch (requests to count at once, see below), then per key: period (ms;
// 0 for a concurrency counter), request cap (or in-flight cap), token cap,
// give-back window, give-back count.
//
// A window counter first takes back the give-back count from the
// give-back window, when that is its current or previous window (also
// when the admission is then refused). An admission counts the batch
// instead of one request on every window when, after that, each window's
// sliding estimate stays at or under half its request cap, no counter is
// a concurrency counter and no token cap is checked; otherwise one.
//
// Reply: 1 (admitted) or 0, then per key: for a concurrency counter the
// number of live leases; for a window w, r, pr, t, pt; then the number of
// requests counted on each window. Admitted, the counts include them.
var admitScript = redis.NewScript(luaCommon + admitLua)

// admitLua is admitScript's body.
const admitLua = `
local now = tonumber(ARGV[1])
local tokens = ARGV[2] == '1'
local member = ARGV[3]
local ttl = tonumber(ARGV[4])
local g = tonumber(ARGV[5])
local st = {}
local ok = 1
for i = 1, #KEYS do
  local a = 5 + (i - 1) * 5
  local p, mr, mt = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local k = KEYS[i]
  if p == 0 then
    redis.call('ZREMRANGEBYSCORE', k, '-inf', num(now))
    local c = redis.call('ZCARD', k)
    st[i] = {c}
    if mr > 0 and c >= mr then ok = 0 end
    g = 1
  else
    local w, r, pr, t, pt = load(k, now, p)
    local bw, bn = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5])
    local gave = false
    if bn > 0 and bw == w then
      r, gave = math.max(0, r - bn), true
    elseif bn > 0 and bw == w - 1 then
      pr, gave = math.max(0, pr - bn), true
    end
    local e = now - w * p
    if e < 0 then e = 0 elseif e > p - 1 then e = p - 1 end
    local rest = p - e
    local used = r + ceildiv(pr * rest, p)
    if mr > 0 and used >= mr then ok = 0 end
    if mr <= 0 or 2 * (used + g) > mr then g = 1 end
    if tokens and mt > 0 then
      if t + ceildiv(pt * rest, p) >= mt then ok = 0 end
      g = 1
    end
    st[i] = {w, r, pr, t, pt, p, gave}
  end
end
for i = 1, #KEYS do
  local s, k = st[i], KEYS[i]
  if ok == 1 then
    if #s == 1 then
      redis.call('ZADD', k, num(now + ttl), member)
      redis.call('PEXPIRE', k, num(3 * ttl))
      s[1] = s[1] + 1
    else
      s[2] = s[2] + g
      store(k, s[6], s[1], s[2], s[3], s[4], s[5])
    end
  elseif #s > 1 and s[7] then
    store(k, s[6], s[1], s[2], s[3], s[4], s[5])
  end
end
local out = {ok}
for i = 1, #KEYS do
  local s = st[i]
  if #s == 1 then
    out[#out + 1] = s[1]
  else
    for j = 1, 5 do out[#out + 1] = s[j] end
  end
end
out[#out + 1] = g
return out
`

// releaseScript ends an admission.
//
// ARGV: now (ms), tokens, cancel ("1"/"0"), admission time (ms), lease id,
// then per key its period (ms; 0 for a concurrency counter).
//
// Concurrency counters lose the lease. Window counters are charged the
// tokens in the window of now (may overshoot the cap); with cancel they
// give back the request to the window that counted it, if that window is
// still the current or previous one and the counter still exists.
var releaseScript = redis.NewScript(luaCommon + `
local now = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
local cancel = ARGV[3] == '1'
local at = tonumber(ARGV[4])
local member = ARGV[5]
for i = 1, #KEYS do
  local p = tonumber(ARGV[5 + i])
  local k = KEYS[i]
  if p == 0 then
    if member ~= '' then redis.call('ZREM', k, member) end
  elseif cancel then
    local v = redis.call('HMGET', k, 'w', 'r', 'pr')
    local sw = tonumber(v[1])
    if sw then
      local aw = math.floor(at / p)
      if aw == sw then
        redis.call('HSET', k, 'r', num(math.max(0, (tonumber(v[2]) or 0) - 1)))
      elseif aw == sw - 1 then
        redis.call('HSET', k, 'pr', num(math.max(0, (tonumber(v[3]) or 0) - 1)))
      end
    end
  elseif tokens > 0 then
    local w, r, pr, t, pt = load(k, now, p)
    store(k, p, w, r, pr, t + tokens, pt)
  end
end
return 1
`)

// peekScript reads counters without changing them.
//
// ARGV: now (ms), then per key its period (ms; 0 for a concurrency
// counter). Reply per key: the number of live leases, or w, r, pr, t, pt
// of a window moved forward to now.
var peekScript = redis.NewScript(luaCommon + `
local now = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS do
  local p = tonumber(ARGV[1 + i])
  if p == 0 then
    out[#out + 1] = redis.call('ZCOUNT', KEYS[i], '(' .. num(now), '+inf')
  else
    local w, r, pr, t, pt = load(KEYS[i], now, p)
    out[#out + 1] = w
    out[#out + 1] = r
    out[#out + 1] = pr
    out[#out + 1] = t
    out[#out + 1] = pt
  end
end
return out
`)
