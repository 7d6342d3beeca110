-- Reservations past their expiry (a process died mid-request) are dropped before anything is reserved.
-- KEYS[1] reservations hash, KEYS[2] their expiry zset.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(expired) do redis.call('HDEL', KEYS[1], id); redis.call('ZREM', KEYS[2], id) end
