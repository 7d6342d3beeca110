-- KEYS: state. ARGV: field ('blockedUntil' | 'closedUntil'), ms. Only ever extends.
local until_ = now + tonumber(ARGV[2])
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if until_ > cur then redis.call('HSET', KEYS[1], ARGV[1], until_) end
return until_
