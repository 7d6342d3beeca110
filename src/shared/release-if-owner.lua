-- KEYS[1] lease key, ARGV[1] owner token: only the holder may release.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
