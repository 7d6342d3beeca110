-- A complete (or dry) run of a search in refresh mode `changed` ends (src/runs/refresh-registry.ts), atomically:
-- the members the skipped partitions had at their last walk join the run's matched set (the mirror counts them as
-- still matching) and, unless dry, the run's keys by partition become the registry's, with its partitions.
-- KEYS: 1 the registry's keys (hash: match key -> partition id), 2 the run's keys (same shape; consumed),
-- 3 the run's matched set (the mirror's input), 4 the registry (JSON string), 5 the search's instances (set).
-- ARGV: 1 '1' to keep the run as the registry, '0' for a dry run; 2 the registry JSON; 3 TTL seconds; 4 the
-- instance; 5.. the ids of the skipped partitions.
-- Returns the skipped partitions' members added to the run's matched set.
local ttl = tonumber(ARGV[3])
local skipped = {}
for i = 5, #ARGV do skipped[ARGV[i]] = true end
local kept = 0
if #ARGV >= 5 then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local key, id = all[i], all[i + 1]
    -- A record this run found in a walked partition stays there.
    if skipped[id] and redis.call('HSETNX', KEYS[2], key, id) == 1 then
      redis.call('SADD', KEYS[3], key)
      kept = kept + 1
    end
  end
end
if ARGV[1] == '1' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('RENAME', KEYS[2], KEYS[1])
    redis.call('EXPIRE', KEYS[1], ttl)
  else
    redis.call('DEL', KEYS[1])
  end
  redis.call('SET', KEYS[4], ARGV[2], 'EX', ttl)
  redis.call('SADD', KEYS[5], ARGV[4])
  redis.call('EXPIRE', KEYS[5], ttl)
else
  redis.call('DEL', KEYS[2])
end
return kept
