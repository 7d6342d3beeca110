-- A run's record ids (src/runs/run-record-ids.ts): the ids of the batches its checkpoint holds as written, in small
-- hash buckets grown by linear hashing (src/shared/linear-buckets.lua, run before this), so each stays a listpack
-- whatever the run's size. One field per id (exact: no hash of it stands in), value 1.
-- KEYS: 1 the meta hash (L, s, n ids).
-- The buckets (ARGV[2] .. address) share the run's hash tag with KEYS[1].
-- ARGV: 1 op, 2 the buckets' name prefix, then:
--   'has' (ids): 1 for each id kept, else 0.
--   'add' (ARGV[3] TTL seconds, then ids): keeps them (the buckets written and the meta get the TTL); returns how
--     many were new.
--   'drop' (ARGV[3] the address to start at, ARGV[4] buckets per step): deletes that many buckets; returns the next
--     address, or 0 once every bucket and the meta are gone.
local MAX_SPLITS = 64
local meta, op, prefix = KEYS[1], ARGV[1], ARGV[2]
local state = redis.call('HMGET', meta, 'L', 's', 'n')
local L, s, n = tonumber(state[1]) or 0, tonumber(state[2]) or 0, tonumber(state[3]) or 0

if op == 'has' then
  local out = {}
  for i = 3, #ARGV do
    out[#out + 1] = redis.call('HEXISTS', lb_bucket(prefix, L, s, lb_hash(ARGV[i])), ARGV[i])
  end
  return out
elseif op == 'add' then
  local ttl = tonumber(ARGV[3])
  L, s = lb_grow(prefix, L, s, n + #ARGV - 3, lb_hash, ttl, MAX_SPLITS)
  local touched, added = {}, 0
  for i = 4, #ARGV do
    local bucket = lb_bucket(prefix, L, s, lb_hash(ARGV[i]))
    added = added + redis.call('HSET', bucket, ARGV[i], 1)
    touched[bucket] = true
  end
  for bucket in pairs(touched) do redis.call('EXPIRE', bucket, ttl) end
  redis.call('HSET', meta, 'L', L, 's', s, 'n', n + added)
  redis.call('EXPIRE', meta, ttl)
  return added
elseif op == 'drop' then
  local from, step = tonumber(ARGV[3]), tonumber(ARGV[4])
  local count = lb_count(L, s)
  local to = math.min(from + step, count)
  for a = from, to - 1 do redis.call('UNLINK', prefix .. string.format('%d', a)) end
  if to < count then return to end
  redis.call('UNLINK', meta)
  return 0
end
return redis.error_reply('run-record-ids: unknown op ' .. tostring(op))
