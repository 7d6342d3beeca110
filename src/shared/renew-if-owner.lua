-- KEYS[1] lease key, ARGV[1] owner token, ARGV[2] lease ms: only the holder may renew.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
