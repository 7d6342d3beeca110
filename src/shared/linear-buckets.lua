-- Prelude of the scripts that keep per-record state in small hash buckets grown by linear hashing
-- (change hashes, the refresh registry's keys, a search's record flags): small enough buckets stay in Redis's
-- compact listpack encoding whatever the number of records. A table of 2^L + s buckets named prefix .. address; a
-- record's address is its 32-bit hash modulo 2^L, or modulo 2^(L+1) below the split pointer s. One split moves
-- one bucket's entries, so growing costs a bounded step however large the table is.
local LB_LOAD = 48

local function lb_hash(text)
  return tonumber(string.sub(redis.sha1hex(text), 1, 8), 16)
end

local function lb_bucket(prefix, L, s, h)
  local a = h % 2 ^ L
  if a < s then a = h % 2 ^ (L + 1) end
  return prefix .. string.format('%d', a)
end

local function lb_count(L, s)
  return 2 ^ L + s
end

-- Bucket s splits into s and s + 2^L (given its TTL, if any): the entries whose hash modulo 2^(L+1) is not s move.
local function lb_split(prefix, L, s, hash_of, ttl)
  local from = prefix .. string.format('%d', s)
  local to = prefix .. string.format('%d', s + 2 ^ L)
  local all = redis.call('HGETALL', from)
  local moved = false
  for i = 1, #all, 2 do
    if hash_of(all[i]) % 2 ^ (L + 1) ~= s then
      redis.call('HSET', to, all[i], all[i + 1])
      redis.call('HDEL', from, all[i])
      moved = true
    end
  end
  if moved and ttl then redis.call('EXPIRE', to, ttl) end
  s = s + 1
  if s == 2 ^ L then return L + 1, 0 end
  return L, s
end

-- Splits ahead of `coming` records (at most `max` splits): a bucket that once outgrew the listpack limits stays a
-- hash table after it shrinks.
local function lb_grow(prefix, L, s, coming, hash_of, ttl, max)
  local splits = 0
  while coming > LB_LOAD * lb_count(L, s) and splits < max do
    L, s = lb_split(prefix, L, s, hash_of, ttl)
    splits = splits + 1
  end
  return L, s
end
