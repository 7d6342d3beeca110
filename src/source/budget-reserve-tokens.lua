-- KEYS: resv hash, resv expiry zset, tokens hash. ARGV: requested, reserve, id, ttlMs.
-- Returns {granted, available before the grant (-1 when the balance is unknown), tokens other reservations hold}.
-- A known balance below the reserve and the reservations is 0 available, never negative: -1 means unknown only.
local st = redis.call('HMGET', KEYS[3], 'remaining', 'resetAt')
local remaining, resetAt = tonumber(st[1]), tonumber(st[2])
local requested = tonumber(ARGV[1])
if not remaining or (resetAt and now >= resetAt) then return {requested, -1, 0} end
local reserved = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do reserved = reserved + tonumber(v) end
local avail = remaining - tonumber(ARGV[2]) - reserved
local grant = math.min(requested, math.max(avail, 0))
if grant > 0 then
  redis.call('HSET', KEYS[1], ARGV[3], grant)
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
end
return {grant, math.max(avail, 0), reserved}
