-- KEYS: tokens hash, account index. ARGV: limit, remaining, resetSeconds, account ('' = no index). Within one period
-- the balance only goes down, so an answer that overtook a later one never raises it.
if ARGV[4] ~= '' then redis.call('SADD', KEYS[2], ARGV[4]) end
local st = redis.call('HMGET', KEYS[1], 'remaining', 'resetAt')
local remaining = tonumber(ARGV[2])
local resetAt = now + tonumber(ARGV[3]) * 1000
local oldRemaining, oldResetAt = tonumber(st[1]), tonumber(st[2])
if oldRemaining and oldResetAt and now < oldResetAt and oldRemaining < remaining then
  remaining = oldRemaining
  resetAt = oldResetAt
end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'remaining', remaining, 'resetAt', resetAt, 'observedAt', now)
return remaining
