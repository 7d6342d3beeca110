-- KEYS: index, then the member's two keys. ARGV: member. Drops the member when neither key exists; atomic, so a
-- writer that recreates a key between a reader's look and this removal is never dropped from the index.
if redis.call('EXISTS', KEYS[2], KEYS[3]) == 0 then return redis.call('SREM', KEYS[1], ARGV[1]) end
return 0
