-- KEYS[1]: the alert state hash. ARGV: condition id, the value the claim wrote, the value to leave.
-- Only the claim's owner settles it: a newer state or a newer claim is left alone.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
