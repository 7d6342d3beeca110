-- One complete run's matched set against a search's membership (src/runs/membership-store.ts), atomically.
-- KEYS: 1 members (set), 2 absent (hash: id -> consecutive complete runs absent), 3 pending (set: confirmed leavers
-- not acted on), 4 meta (hash: baseline, lastMatched), 5 the run's matched set (deleted here).
-- ARGV: 1 confirmRuns, 2 maxShare.
-- Returns {entered, left, matched, guarded (0/1), pending}.
local confirm, maxShare = tonumber(ARGV[1]), tonumber(ARGV[2])
local matched = redis.call('SCARD', KEYS[5])
local entered = redis.call('SDIFF', KEYS[5], KEYS[1])
-- A confirmed leaver not acted on yet that matches again is a member again, nothing to act on.
for _, id in ipairs(entered) do redis.call('SREM', KEYS[3], id) end
-- A member absent before and matched now starts over.
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  if redis.call('SISMEMBER', KEYS[5], id) == 1 then redis.call('HDEL', KEYS[2], id) end
end
local left = 0
for _, id in ipairs(redis.call('SDIFF', KEYS[1], KEYS[5])) do
  if redis.call('HINCRBY', KEYS[2], id, 1) >= confirm then
    redis.call('SREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('SADD', KEYS[3], id)
    left = left + 1
  end
end
if matched > 0 then redis.call('SUNIONSTORE', KEYS[1], KEYS[1], KEYS[5]) end
redis.call('DEL', KEYS[5])
-- The guard compares with the matches of the last run it let through (or that `leavers --apply` accepted).
local baseline = tonumber(redis.call('HGET', KEYS[4], 'baseline'))
local guarded = 0
if matched == 0 or (baseline ~= nil and baseline > 0 and (baseline - matched) / baseline > maxShare) then guarded = 1 end
if guarded == 0 then redis.call('HSET', KEYS[4], 'baseline', matched) end
redis.call('HSET', KEYS[4], 'lastMatched', matched)
return {#entered, left, matched, guarded, redis.call('SCARD', KEYS[3])}
