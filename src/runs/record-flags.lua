-- Prelude of the membership scripts (src/runs/membership-store.ts): a search's record flags per CRM instance, one
-- field per match key (exact) in buckets grown by linear hashing (src/shared/linear-buckets.lua, run before this),
-- value = flags: 1 member, 2 in the search's CRM list; a record with no flag left has no field. The meta hash keeps
-- L, s, n (fields) and m (members), so counting members reads one field.
local REC_MEMBER, REC_LISTED = 1, 2
local REC = {}

local function rec_open(meta, prefix)
  local st = redis.call('HMGET', meta, 'L', 's', 'n', 'm')
  REC = { meta = meta, prefix = prefix, L = tonumber(st[1]) or 0, s = tonumber(st[2]) or 0,
    n = tonumber(st[3]) or 0, m = tonumber(st[4]) or 0 }
end

local function rec_bucket(id)
  return lb_bucket(REC.prefix, REC.L, REC.s, lb_hash(id))
end

local function rec_get(id)
  return tonumber(redis.call('HGET', rec_bucket(id), id)) or 0
end

-- Splits ahead of up to `coming` new fields.
local function rec_grow(coming)
  REC.L, REC.s = lb_grow(REC.prefix, REC.L, REC.s, REC.n + coming, lb_hash, nil, 64)
end

-- Sets (`on`) or clears the flags `mask` of `id`; returns its flags before.
local function rec_update(id, mask, on)
  local bucket = rec_bucket(id)
  local before = tonumber(redis.call('HGET', bucket, id)) or 0
  local after = on and bit.bor(before, mask) or bit.band(before, bit.bnot(mask))
  if after == before then return before end
  if after == 0 then
    redis.call('HDEL', bucket, id)
    REC.n = REC.n - 1
  elseif redis.call('HSET', bucket, id, after) == 1 then
    REC.n = REC.n + 1
  end
  if bit.band(after, REC_MEMBER) ~= bit.band(before, REC_MEMBER) then
    REC.m = REC.m + (bit.band(after, REC_MEMBER) == 0 and -1 or 1)
  end
  return before
end

local function rec_close()
  redis.call('HSET', REC.meta, 'L', REC.L, 's', REC.s, 'n', REC.n, 'm', REC.m)
end

-- The buckets from address `from` on, whole, until `want` fields were read: next address (0 once all were read)
-- and the fields with their flags, flat.
local function rec_page(from, want)
  local count, a, out = lb_count(REC.L, REC.s), from, {}
  while a < count and #out < 2 * want do
    local all = redis.call('HGETALL', REC.prefix .. string.format('%d', a))
    for i = 1, #all do out[#out + 1] = all[i] end
    a = a + 1
  end
  if a >= count then a = 0 end
  return a, out
end
