-- The change hashes of one CRM instance, object and mapping (src/crm/change-hash-store.ts) in small hash buckets grown
-- by linear hashing (the prelude), so Redis keeps each in its compact listpack encoding whatever the number of
-- records. A record's field is the first 8 bytes of SHA-1 of its match key (its value: the stored hashes); its first
-- 4 bytes address the bucket. A collision of two match keys on 64 bits only ever makes a record look changed (it is
-- sent again), never the reverse.
-- The flat hash of the layout before (field = match key) is read where a bucket has nothing, and drained into the
-- buckets by every write (DRAIN entries per call, resumable: a drained entry leaves it).
-- Run after src/shared/linear-buckets.lua (its prelude).
-- KEYS: 1 meta (hash: L, s, n records, mc the drain's HSCAN cursor), 2 the flat hash of the layout before.
-- The buckets (ARGV[2] .. address) share the prefix's hash tag, hence the slot of KEYS on a Redis Cluster.
-- ARGV: 1 'get' | 'set' | 'del', 2 the buckets' name prefix, 3 TTL seconds (renewed on every bucket read or written;
-- not by 'del', so a store only deleted from still expires), 4 set: entries of the layout before to drain (else
-- unused); then get/del: match keys; set: match key, value pairs.
-- Returns get: the stored values (nil where none); set/del: the records kept.
local MAX_SPLITS = 64
local meta, legacy = KEYS[1], KEYS[2]
local op, prefix, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local state = redis.call('HMGET', meta, 'L', 's', 'n')
local L, s, n = tonumber(state[1]) or 0, tonumber(state[2]) or 0, tonumber(state[3]) or 0
local hasLegacy = redis.call('EXISTS', legacy) == 1

local function fieldOf(key)
  local hex = redis.sha1hex(key)
  local bytes = {}
  for i = 1, 15, 2 do bytes[#bytes + 1] = tonumber(string.sub(hex, i, i + 1), 16) end
  return string.char(unpack(bytes))
end

-- The field's first 4 bytes: lb_hash of the match key.
local function hashOf(field)
  local b1, b2, b3, b4 = string.byte(field, 1, 4)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4
end

local function bucketOf(field)
  return lb_bucket(prefix, L, s, hashOf(field))
end

local touched = {}
local function touch(bucket) touched[bucket] = true end
local function renew()
  for bucket in pairs(touched) do redis.call('EXPIRE', bucket, ttl) end
  redis.call('EXPIRE', meta, ttl)
end

if op == 'get' then
  local out = {}
  for i = 5, #ARGV do
    local field = fieldOf(ARGV[i])
    local bucket = bucketOf(field)
    local value = redis.call('HGET', bucket, field)
    if not value and hasLegacy then value = redis.call('HGET', legacy, ARGV[i]) end
    out[#out + 1] = value
    touch(bucket)
  end
  renew()
  if hasLegacy then redis.call('EXPIRE', legacy, ttl) end
  return out
end

if op == 'set' then
  local coming = n + (#ARGV - 4) / 2
  if hasLegacy then coming = coming + tonumber(ARGV[4]) end
  L, s = lb_grow(prefix, L, s, coming, hashOf, ttl, MAX_SPLITS)
  for i = 5, #ARGV, 2 do
    local field = fieldOf(ARGV[i])
    local bucket = bucketOf(field)
    n = n + redis.call('HSET', bucket, field, ARGV[i + 1])
    touch(bucket)
    if hasLegacy then redis.call('HDEL', legacy, ARGV[i]) end
  end
  if hasLegacy then
    local r = redis.call('HSCAN', legacy, redis.call('HGET', meta, 'mc') or '0', 'COUNT', tonumber(ARGV[4]))
    local entries = r[2]
    for i = 1, #entries, 2 do
      local field = fieldOf(entries[i])
      local bucket = bucketOf(field)
      -- A value written in the buckets meanwhile is the newer one.
      n = n + redis.call('HSETNX', bucket, field, entries[i + 1])
      touch(bucket)
      redis.call('HDEL', legacy, entries[i])
    end
    redis.call('HSET', meta, 'mc', r[1])
  else
    redis.call('HDEL', meta, 'mc')
  end
elseif op == 'del' then
  -- Nothing stored: nothing to delete, and no meta created.
  if not hasLegacy and redis.call('EXISTS', meta) == 0 then return 0 end
  for i = 5, #ARGV do
    local field = fieldOf(ARGV[i])
    n = n - redis.call('HDEL', bucketOf(field), field)
    if hasLegacy then redis.call('HDEL', legacy, ARGV[i]) end
  end
  if n < 0 then n = 0 end
  redis.call('HSET', meta, 'L', L, 's', s, 'n', n)
  if redis.call('TTL', meta) < 0 then redis.call('EXPIRE', meta, ttl) end
  return n
end
redis.call('HSET', meta, 'L', L, 's', s, 'n', n)
renew()
return n
