-- KEYS: resv hash, resv expiry zset, run used, day used. ARGV: requested, maxRun (-1 none), maxDay, id, ttlMs, runId.
-- Returns {granted, binding cap (0 none, 1 run, 2 day), credits of that cap held by reservations in flight}.
local runUsed = tonumber(redis.call('GET', KEYS[3])) or 0
local dayUsed = tonumber(redis.call('GET', KEYS[4])) or 0
local runResv, dayResv = 0, 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  local sep = string.find(v, '|', 1, true)
  local amount = tonumber(string.sub(v, 1, sep - 1))
  dayResv = dayResv + amount
  if string.sub(v, sep + 1) == ARGV[6] then runResv = runResv + amount end
end
local avail = tonumber(ARGV[1])
if tonumber(ARGV[2]) >= 0 then avail = math.min(avail, tonumber(ARGV[2]) - runUsed - runResv) end
if tonumber(ARGV[3]) >= 0 then avail = math.min(avail, tonumber(ARGV[3]) - dayUsed - dayResv) end
local grant = math.max(avail, 0)
if grant > 0 then
  redis.call('HSET', KEYS[1], ARGV[4], grant .. '|' .. ARGV[6])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
end
-- The cap that binds: the smaller remaining of run and day (in-flight reservations included); run wins ties.
local binding = 0
local runLeft, dayLeft = tonumber(ARGV[2]) - runUsed - runResv, tonumber(ARGV[3]) - dayUsed - dayResv
if tonumber(ARGV[2]) >= 0 and (tonumber(ARGV[3]) < 0 or runLeft <= dayLeft) then binding = 1
elseif tonumber(ARGV[3]) >= 0 then binding = 2 end
-- What in-flight pages hold of the binding cap: they may come back with fewer records and free some of it.
local held = 0
if binding == 1 then held = runResv elseif binding == 2 then held = dayResv end
return {grant, binding, held}
