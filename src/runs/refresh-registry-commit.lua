-- A complete (or dry) run of a search in refresh mode `changed` ends (src/runs/refresh-registry.ts), atomically:
-- the members the skipped partitions had at their last walk join the run's matched set (the mirror counts them as
-- still matching), and so do the members held: gone from a walked partition and found in none, they may have moved
-- into a skipped one (its count unchanged), so they are held until every partition was walked after they went.
-- Unless dry, the run's keys by partition become the registry's, with its partitions.
-- KEYS: 1 the registry's keys (hash: match key -> partition id), 2 the run's keys (same shape; consumed),
-- 3 the run's matched set (the mirror's input), 4 the registry (JSON string), 5 the search's instances (set),
-- 6 the held members (hash: match key -> when they went, ms).
-- ARGV: 1 '1' to keep the run as the registry, '0' for a dry run; 2 the registry JSON; 3 TTL seconds; 4 the
-- instance; 5 the run's time (ms); 6 the oldest last walk of the partitions holding records after this run (ms);
-- 7.. the ids of the skipped partitions.
-- Returns {members of skipped partitions added to the matched set, members held}.
local keep, ttl, now, covered = ARGV[1] == '1', tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local skipped = {}
for i = 7, #ARGV do skipped[ARGV[i]] = true end
local kept, held = 0, 0
local all = redis.call('HGETALL', KEYS[1])
local gone = {}
for i = 1, #all, 2 do
  local key, id = all[i], all[i + 1]
  if skipped[id] then
    -- A record this run found in a walked partition stays there.
    if redis.call('HSETNX', KEYS[2], key, id) == 1 then
      redis.call('SADD', KEYS[3], key)
      kept = kept + 1
    end
  elseif redis.call('HEXISTS', KEYS[2], key) == 0 then
    gone[#gone + 1] = key
  end
end
-- Held before: found again, or released once every partition was walked after it went (then it is absent).
local before = redis.call('HGETALL', KEYS[6])
for i = 1, #before, 2 do
  local key, since = before[i], tonumber(before[i + 1])
  if redis.call('HEXISTS', KEYS[2], key) == 1 or since <= covered then
    if keep then redis.call('HDEL', KEYS[6], key) end
  else
    redis.call('SADD', KEYS[3], key)
    held = held + 1
  end
end
if now > covered then
  for _, key in ipairs(gone) do
    redis.call('SADD', KEYS[3], key)
    held = held + 1
    if keep then redis.call('HSETNX', KEYS[6], key, now) end
  end
end
if keep then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('RENAME', KEYS[2], KEYS[1])
    redis.call('EXPIRE', KEYS[1], ttl)
  else
    redis.call('DEL', KEYS[1])
  end
  redis.call('SET', KEYS[4], ARGV[2], 'EX', ttl)
  redis.call('SADD', KEYS[5], ARGV[4])
  redis.call('EXPIRE', KEYS[5], ttl)
  if redis.call('EXISTS', KEYS[6]) == 1 then redis.call('EXPIRE', KEYS[6], ttl) end
else
  redis.call('DEL', KEYS[2])
end
return {kept, held}
