-- KEYS[1]: the search's totals hash; KEYS[2]: this run id's last recorded counters.
-- ARGV: ttl seconds (of KEYS[2]), runs field, duration seconds, n buckets, bucket bounds..., then counter name/value
-- pairs. A retried run (same run id) records a summary per attempt whose counters include the earlier attempts':
-- only the growth since the last summary of that run id is added.
local ttl, runsField, seconds, nb = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 5, 4 + nb do
  if seconds <= tonumber(ARGV[i]) then redis.call('HINCRBY', KEYS[1], 'duration|le|' .. ARGV[i], 1) end
end
redis.call('HINCRBYFLOAT', KEYS[1], 'duration|sum', seconds)
redis.call('HINCRBY', KEYS[1], 'duration|count', 1)
redis.call('HINCRBY', KEYS[1], runsField, 1)
for i = 5 + nb, #ARGV, 2 do
  local name, value = ARGV[i], tonumber(ARGV[i + 1])
  local before = tonumber(redis.call('HGET', KEYS[2], name)) or 0
  if value > before then redis.call('HINCRBY', KEYS[1], name, value - before) end
  redis.call('HSET', KEYS[2], name, value)
end
redis.call('EXPIRE', KEYS[2], ttl)
