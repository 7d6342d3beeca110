-- Prelude of the scripts on a search's record state (src/shared/record-state.ts), run after
-- src/shared/linear-buckets.lua: one field per match key (exact) per search and CRM instance, in buckets grown by
-- linear hashing. This file is the one owner of the field's encoding: one digit of flags (1 member, 2 in the search's
-- CRM list: src/runs/membership-store.ts), then the record's change fingerprint, if any
-- (src/crm/search-change-detector.ts; its layout is the detector's): '1' or '3' are flags only (as written before
-- fingerprints), '0' .. print a fingerprint without flags (a leaver, a search without a mirror). A field with neither
-- is deleted. The meta hash keeps L, s, n (fields) and m (members), so counting members reads one field.
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

-- Flags and fingerprint of a stored value (none: 0, '').
local function rec_decode(value)
  if not value then return 0, '' end
  return tonumber(string.sub(value, 1, 1)) or 0, string.sub(value, 2)
end

-- The field of `id`: its bucket, flags, fingerprint and whether it exists.
local function rec_read(id)
  local bucket = rec_bucket(id)
  local value = redis.call('HGET', bucket, id)
  local flags, print = rec_decode(value)
  return bucket, flags, print, value ~= false
end

-- Writes flags and fingerprint of `id` (its field read before: rec_read), deleting a field left with neither; keeps
-- the field and member counts.
local function rec_store(bucket, id, existed, before, flags, print)
  if flags == 0 and print == '' then
    if existed then
      redis.call('HDEL', bucket, id)
      REC.n = REC.n - 1
    end
  else
    redis.call('HSET', bucket, id, string.format('%d', flags) .. print)
    if not existed then REC.n = REC.n + 1 end
  end
  if bit.band(flags, REC_MEMBER) ~= bit.band(before, REC_MEMBER) then
    REC.m = REC.m + (bit.band(flags, REC_MEMBER) == 0 and -1 or 1)
  end
end

local function rec_get(id)
  local _, flags = rec_read(id)
  return flags
end

-- Splits ahead of up to `coming` new fields.
local function rec_grow(coming)
  REC.L, REC.s = lb_grow(REC.prefix, REC.L, REC.s, REC.n + coming, lb_hash, nil, 64)
end

-- Sets (`on`) or clears the flags `mask` of `id` (its fingerprint kept); returns its flags before.
local function rec_update(id, mask, on)
  local bucket, before, print, existed = rec_read(id)
  local after = on and bit.bor(before, mask) or bit.band(before, bit.bnot(mask))
  if after ~= before then rec_store(bucket, id, existed, before, after, print) end
  return before
end

-- Sets the fingerprint of `id` ('' removes it), its flags kept.
local function rec_set_print(id, print)
  local bucket, flags, before, existed = rec_read(id)
  if print ~= before then rec_store(bucket, id, existed, flags, flags, print) end
end

-- The fingerprint of `id` ('' when none).
local function rec_print(id)
  local _, _, print = rec_read(id)
  return print
end

-- Removes the field of `id` whole (erasure: flags and fingerprint).
local function rec_erase(id)
  local bucket, flags, _, existed = rec_read(id)
  if existed then rec_store(bucket, id, true, flags, 0, '') end
end

local function rec_close()
  redis.call('HSET', REC.meta, 'L', REC.L, 's', REC.s, 'n', REC.n, 'm', REC.m)
end

-- The buckets from address `from` on, whole, until `want` fields were read: next address (0 once all were read)
-- and the fields with their flags (a number), flat.
local function rec_page(from, want)
  local count, a, out = lb_count(REC.L, REC.s), from, {}
  while a < count and #out < 2 * want do
    local all = redis.call('HGETALL', REC.prefix .. string.format('%d', a))
    for i = 1, #all, 2 do
      out[#out + 1] = all[i]
      out[#out + 1] = rec_decode(all[i + 1])
    end
    a = a + 1
  end
  if a >= count then a = 0 end
  return a, out
end
