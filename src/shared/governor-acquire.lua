-- KEYS: log, state, probe. ARGV: guardMs (-1: 0.5% of the window, 25..250 ms), grant id, probe ttl ms,
-- default window ms, until-learned ('probe' | 'open' | 'limit'), fallback limit, fallback window ms.
-- Returns {1, 0} granted, {0, waitMs} wait, {2, closedForMs} closed.
local st = redis.call('HMGET', KEYS[2], 'limit', 'windowMs', 'blockedUntil', 'closedUntil')
local closed = tonumber(st[4]) or 0
if closed > now then return {2, closed - now} end
local blocked = tonumber(st[3]) or 0
if blocked > now then return {0, blocked - now} end
local limit = tonumber(st[1])
local windowMs = tonumber(st[2])
if not limit then
  if ARGV[5] == 'open' then return {1, 0} end
  if ARGV[5] == 'probe' then
    if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then return {0, 20} end
    redis.call('ZADD', KEYS[1], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 3)
    return {1, 0}
  end
  limit = tonumber(ARGV[6])
  windowMs = tonumber(ARGV[7])
end
local guard = tonumber(ARGV[1])
if guard < 0 then guard = math.min(math.max(windowMs * 0.005, 25), 250) end
local span = windowMs + guard
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], math.ceil(span * 2))
  return {1, 0}
end
local entry = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, math.max(1, tonumber(entry[2]) + span - now + 1)}
