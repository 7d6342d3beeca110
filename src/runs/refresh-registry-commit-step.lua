-- One step of a complete (or dry) run's commit of a search in refresh mode `changed` (src/runs/refresh-registry.ts):
-- a bounded slice of one phase, so no call holds Redis long whatever the registry's size; the progress (phase,
-- cursor, counters) is kept with each step's writes, so a commit cut off resumes where it was. What it does: the
-- members the skipped partitions had at their last walk join the run's matched set (the mirror counts them as still
-- matching), and so do the members held: gone from a walked partition and found in none, they may have moved into a
-- skipped one (its count unchanged), so they are held until every partition was walked after they went. Unless
-- dry, the run's keys by partition become the registry's, with its partitions.
-- The registry's keys are a generation of listpack buckets (the prelude's linear hashing; field = match key, value =
-- a small code of its partition, the generation's `:i` hash giving the partition id of a code, `:p` the reverse).
-- A commit copies the run's keys into a new generation, points the registry at it and drops the old one bucket by
-- bucket. A registry of the layout before (one hash, match key -> partition id) is read as the old generation.
-- Phases: `registry` (the old generation bucket by bucket, or HSCAN of the layout before: those of skipped
-- partitions kept, those gone staged), `held` (HSCAN of the held: found again or released, else held on), `gone`
-- (SSCAN of the staged: held from now), `copy` (HSCAN of the run's keys into the new generation), `swap`, `drop`
-- (the old generation's buckets, a slice a step), then the end.
-- Run after step-progress.lua and src/shared/linear-buckets.lua (its preludes).
-- KEYS: 1 the registry's generation (hash: gen), 2 the registry's keys of the layout before (hash: match key ->
-- partition id), 3 the run's keys (same shape; consumed), 4 the run's matched set (the mirror's input), 5 the
-- registry (JSON string), 6 the search's instances (set), 7 the held members (hash: match key -> when they went, ms),
-- 8 the commit's progress (hash), 9 the skipped partitions' ids (set), 10 the keys gone (set, staged), 11 the keys
-- counted as held (set, staged).
-- A generation's keys (ARGV[9] .. gen .. ':m' (hash: L, s, n, codes), ':p', ':i', ':b' .. address) share the
-- search's hash tag with KEYS.
-- ARGV: 1 '1' to keep the run as the registry, '0' for a dry run; 2 the registry JSON; 3 TTL seconds; 4 the
-- instance; 5 the run's time (ms); 6 the oldest last walk of the partitions holding records after this run (ms);
-- 7 entries per step (twice as many copied or dropped); 8 the progress TTL (seconds); 9 the generations' name
-- prefix.
-- Returns {1 when committed else 0, members of skipped partitions added to the matched set, members held}.
local keep, ttl, now, covered = ARGV[1] == '1', tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local step = tonumber(ARGV[7])
local COPY_STEPS = 2
local S, G = KEYS[8], ARGV[9]
if redis.call('EXISTS', S) == 0 then
  -- The generations this commit reads and writes, fixed at its first step.
  local old = tonumber(redis.call('HGET', KEYS[1], 'gen')) or -1
  local new = now
  if new <= old then new = old + 1 end
  step_progress(S, 'registry', tonumber(ARGV[8]), 'kept', 0, 'held', 0, 'old', old, 'new', new)
end
local phase, cursor = step_progress(S, 'registry', tonumber(ARGV[8]))
local old, new = unpack(redis.call('HMGET', S, 'old', 'new'))
local function gen(g, part) return G .. string.format('%d', g) .. part end
old, new = tonumber(old), tonumber(new)

-- Counted once per step (HINCRBY at its end); a key visited twice (SCAN may repeat one) is held once.
local kept, held = 0, 0
local function hold(key)
  redis.call('SADD', KEYS[4], key)
  held = held + redis.call('SADD', KEYS[11], key)
end

local function visit(key, id)
  if redis.call('SISMEMBER', KEYS[9], id) == 1 then
    -- A record this run found in a walked partition stays there.
    if redis.call('HSETNX', KEYS[3], key, id) == 1 then
      redis.call('SADD', KEYS[4], key)
      kept = kept + 1
    end
  elseif redis.call('HEXISTS', KEYS[3], key) == 0 then
    redis.call('SADD', KEYS[10], key)
  end
end

if phase == 'registry' then
  if old >= 0 then
    -- The old generation, whole buckets at a time, until `step` entries were visited.
    local state = redis.call('HMGET', gen(old, ':m'), 'L', 's')
    local count = lb_count(tonumber(state[1]) or 0, tonumber(state[2]) or 0)
    local a, visited = tonumber(cursor), 0
    local ids = {}
    while a < count and visited < step do
      local all = redis.call('HGETALL', gen(old, ':b') .. string.format('%d', a))
      for i = 1, #all, 2 do
        local code = all[i + 1]
        if ids[code] == nil then ids[code] = redis.call('HGET', gen(old, ':i'), code) or '' end
        visit(all[i], ids[code])
      end
      visited = visited + #all / 2
      a = a + 1
    end
    step_advance(S, a < count and string.format('%d', a) or '0', 'held')
  else
    local r = redis.call('HSCAN', KEYS[2], cursor, 'COUNT', step)
    local entries = r[2]
    for i = 1, #entries, 2 do visit(entries[i], entries[i + 1]) end
    step_advance(S, r[1], 'held')
  end
  redis.call('HINCRBY', S, 'kept', kept)
elseif phase == 'held' then
  -- Held before: found again, or released once every partition was walked after it went (then it is absent).
  local r = redis.call('HSCAN', KEYS[7], cursor, 'COUNT', step)
  local entries = r[2]
  for i = 1, #entries, 2 do
    local key, since = entries[i], tonumber(entries[i + 1])
    if redis.call('HEXISTS', KEYS[3], key) == 1 or since <= covered then
      if keep then redis.call('HDEL', KEYS[7], key) end
    else
      hold(key)
    end
  end
  redis.call('HINCRBY', S, 'held', held)
  step_advance(S, r[1], 'gone')
elseif phase == 'gone' then
  if now > covered then
    local r = redis.call('SSCAN', KEYS[10], cursor, 'COUNT', step)
    for _, key in ipairs(r[2]) do
      hold(key)
      if keep then redis.call('HSETNX', KEYS[7], key, now) end
    end
    redis.call('HINCRBY', S, 'held', held)
    step_advance(S, r[1], 'copy')
  else
    step_advance(S, '0', 'copy')
  end
elseif phase == 'copy' and keep then
  local m = gen(new, ':m')
  local state = redis.call('HMGET', m, 'L', 's', 'n')
  local L, s, n = tonumber(state[1]) or 0, tonumber(state[2]) or 0, tonumber(state[3]) or 0
  -- A copied entry costs less than a visited one (no lookups): more of them a step, fewer round trips.
  local r = redis.call('HSCAN', KEYS[3], cursor, 'COUNT', COPY_STEPS * step)
  local entries = r[2]
  local prefix = gen(new, ':b')
  L, s = lb_grow(prefix, L, s, n + #entries / 2, lb_hash, ttl, 64)
  local codes, touched = {}, {}
  for i = 1, #entries, 2 do
    local key, id = entries[i], entries[i + 1]
    local code = codes[id] or redis.call('HGET', gen(new, ':p'), id)
    if not code then
      code = redis.call('HINCRBY', m, 'codes', 1)
      redis.call('HSET', gen(new, ':p'), id, code)
      redis.call('HSET', gen(new, ':i'), code, id)
    end
    codes[id] = code
    local bucket = lb_bucket(prefix, L, s, lb_hash(key))
    n = n + redis.call('HSET', bucket, key, code)
    touched[bucket] = true
  end
  for bucket in pairs(touched) do redis.call('EXPIRE', bucket, ttl) end
  redis.call('HSET', m, 'L', L, 's', s, 'n', n)
  for _, part in ipairs({ ':m', ':p', ':i' }) do redis.call('EXPIRE', gen(new, part), ttl) end
  step_advance(S, r[1], 'swap')
elseif phase == 'copy' or phase == 'swap' then
  if keep then
    redis.call('HSET', KEYS[1], 'gen', new)
    redis.call('EXPIRE', KEYS[1], ttl)
    redis.call('SET', KEYS[5], ARGV[2], 'EX', ttl)
    redis.call('SADD', KEYS[6], ARGV[4])
    redis.call('EXPIRE', KEYS[6], ttl)
    if redis.call('EXISTS', KEYS[7]) == 1 then redis.call('EXPIRE', KEYS[7], ttl) end
    -- Freed in the background: the layout before, converted by this commit.
    redis.call('UNLINK', KEYS[2])
  end
  redis.call('UNLINK', KEYS[3])
  step_advance(S, '0', (keep and old >= 0) and 'drop' or 'end')
elseif phase == 'drop' then
  local state = redis.call('HMGET', gen(old, ':m'), 'L', 's')
  local count = lb_count(tonumber(state[1]) or 0, tonumber(state[2]) or 0)
  local a = tonumber(cursor)
  local names = {}
  while a < count and #names < COPY_STEPS * step do
    names[#names + 1] = gen(old, ':b') .. string.format('%d', a)
    a = a + 1
  end
  if #names > 0 then redis.call('UNLINK', unpack(names)) end
  if a >= count then redis.call('UNLINK', gen(old, ':m'), gen(old, ':p'), gen(old, ':i')) end
  step_advance(S, a < count and string.format('%d', a) or '0', 'end')
else
  kept, held = unpack(redis.call('HMGET', S, 'kept', 'held'))
  redis.call('UNLINK', S, KEYS[9], KEYS[10], KEYS[11])
  return {1, tonumber(kept), tonumber(held)}
end
return {0, 0, 0}
