-- Prelude of the scripts that work in bounded steps (membership-settle-step.lua, refresh-registry-commit-step.lua):
-- their progress hash (phase, cursor, counters), made at the first step with a TTL, and the move to the next cursor
-- or, once a SCAN cursor is back at 0, to the next phase.
local function step_progress(key, first, ttl, ...)
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'phase', first, 'cursor', '0', ...)
    redis.call('EXPIRE', key, ttl)
  end
  return unpack(redis.call('HMGET', key, 'phase', 'cursor'))
end

local function step_advance(key, next, following)
  if next == '0' then
    redis.call('HSET', key, 'phase', following, 'cursor', '0')
  else
    redis.call('HSET', key, 'cursor', next)
  end
end
