-- One step of a complete (or dry) run's commit of a search in refresh mode `changed` (src/runs/refresh-registry.ts):
-- a bounded slice of one phase, so no call holds Redis long whatever the registry's size; the progress (phase,
-- cursor, counters) is kept with each step's writes, so a commit cut off resumes where it was. What it does: the
-- members the skipped partitions had at their last walk join the run's matched set (the mirror counts them as still
-- matching), and so do the members held: gone from a walked partition and found in none, they may have moved into a
-- skipped one (its count unchanged), so they are held until every partition was walked after they went. Unless
-- dry, the run's keys by partition become the registry's, with its partitions.
-- Phases: `registry` (HSCAN of the registry's keys: those of skipped partitions kept, those gone staged),
-- `held` (HSCAN of the held: found again or released, else held on), `gone` (SSCAN of the staged: held from now),
-- then the swap.
-- Run after step-progress.lua (its prelude).
-- KEYS: 1 the registry's keys (hash: match key -> partition id), 2 the run's keys (same shape; consumed), 3 the run's
-- matched set (the mirror's input), 4 the registry (JSON string), 5 the search's instances (set), 6 the held members
-- (hash: match key -> when they went, ms), 7 the commit's progress (hash), 8 the skipped partitions' ids (set),
-- 9 the keys gone (set, staged), 10 the keys counted as held (set, staged).
-- ARGV: 1 '1' to keep the run as the registry, '0' for a dry run; 2 the registry JSON; 3 TTL seconds; 4 the
-- instance; 5 the run's time (ms); 6 the oldest last walk of the partitions holding records after this run (ms);
-- 7 entries per step (SCAN COUNT); 8 the progress TTL (seconds).
-- Returns {1 when committed else 0, members of skipped partitions added to the matched set, members held}.
local keep, ttl, now, covered = ARGV[1] == '1', tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local step = tonumber(ARGV[7])
local S = KEYS[7]
local phase, cursor = step_progress(S, 'registry', tonumber(ARGV[8]), 'kept', 0, 'held', 0)

-- Counted once per step (HINCRBY at its end); a key visited twice (SCAN may repeat one) is held once.
local kept, held = 0, 0
local function hold(key)
  redis.call('SADD', KEYS[3], key)
  held = held + redis.call('SADD', KEYS[10], key)
end

if phase == 'registry' then
  local r = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', step)
  local entries = r[2]
  for i = 1, #entries, 2 do
    local key, id = entries[i], entries[i + 1]
    if redis.call('SISMEMBER', KEYS[8], id) == 1 then
      -- A record this run found in a walked partition stays there.
      if redis.call('HSETNX', KEYS[2], key, id) == 1 then
        redis.call('SADD', KEYS[3], key)
        kept = kept + 1
      end
    elseif redis.call('HEXISTS', KEYS[2], key) == 0 then
      redis.call('SADD', KEYS[9], key)
    end
  end
  redis.call('HINCRBY', S, 'kept', kept)
  step_advance(S, r[1], 'held')
elseif phase == 'held' then
  -- Held before: found again, or released once every partition was walked after it went (then it is absent).
  local r = redis.call('HSCAN', KEYS[6], cursor, 'COUNT', step)
  local entries = r[2]
  for i = 1, #entries, 2 do
    local key, since = entries[i], tonumber(entries[i + 1])
    if redis.call('HEXISTS', KEYS[2], key) == 1 or since <= covered then
      if keep then redis.call('HDEL', KEYS[6], key) end
    else
      hold(key)
    end
  end
  redis.call('HINCRBY', S, 'held', held)
  step_advance(S, r[1], 'gone')
elseif phase == 'gone' and now > covered then
  local r = redis.call('SSCAN', KEYS[9], cursor, 'COUNT', step)
  for _, key in ipairs(r[2]) do
    hold(key)
    if keep then redis.call('HSETNX', KEYS[6], key, now) end
  end
  redis.call('HINCRBY', S, 'held', held)
  step_advance(S, r[1], 'swap')
else
  kept, held = unpack(redis.call('HMGET', S, 'kept', 'held'))
  if keep then
    -- Freed in the background (RENAME would free the old registry's keys within the call).
    redis.call('UNLINK', KEYS[1])
    if redis.call('EXISTS', KEYS[2]) == 1 then
      redis.call('RENAME', KEYS[2], KEYS[1])
      redis.call('EXPIRE', KEYS[1], ttl)
    end
    redis.call('SET', KEYS[4], ARGV[2], 'EX', ttl)
    redis.call('SADD', KEYS[5], ARGV[4])
    redis.call('EXPIRE', KEYS[5], ttl)
    if redis.call('EXISTS', KEYS[6]) == 1 then redis.call('EXPIRE', KEYS[6], ttl) end
  else
    redis.call('UNLINK', KEYS[2])
  end
  redis.call('UNLINK', S, KEYS[8], KEYS[9], KEYS[10])
  return {1, tonumber(kept), tonumber(held)}
end
return {0, 0, 0}
