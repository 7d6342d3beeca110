-- A learned (or fallback) limit: (state, probe, log, limit, windowMs, mode, ttlMs, remaining (-1: unknown), id).
-- A fallback never loosens a slower learned rate. `remaining` below what our log explains means other clients
-- share the allowance: their share is booked as used now.
local function learn(state, probe, log, limit, windowMs, mode, ttlMs, remaining, id)
  if mode == 'fallback' then
    local st = redis.call('HMGET', state, 'limit', 'windowMs', 'mode')
    local l, w = tonumber(st[1]), tonumber(st[2])
    if l and w and st[3] == 'headers' and l / w < limit / windowMs then limit, windowMs = l, w end
  end
  redis.call('HSET', state, 'limit', limit, 'windowMs', windowMs, 'mode', mode, 'learnedAt', now)
  redis.call('PEXPIRE', state, ttlMs)
  redis.call('DEL', probe)
  if remaining >= 0 then
    local n = redis.call('ZCOUNT', log, now - windowMs, '+inf')
    local missing = math.min(limit - remaining - n, limit)
    for i = 1, missing do redis.call('ZADD', log, now, id .. ':' .. i) end
    if missing > 0 then redis.call('PEXPIRE', log, windowMs * 3) end
  end
end
