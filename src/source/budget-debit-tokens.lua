-- KEYS: tokens hash. ARGV: n. A search that got no answer may have been charged: lower the known balance by the
-- worst case (never raised back within the period, as budget-observe-tokens.lua only lowers it).
local st = redis.call('HMGET', KEYS[1], 'remaining', 'resetAt')
local remaining, resetAt = tonumber(st[1]), tonumber(st[2])
if not remaining or (resetAt and now >= resetAt) then return -1 end
remaining = math.max(0, remaining - tonumber(ARGV[1]))
redis.call('HSET', KEYS[1], 'remaining', remaining)
return remaining
