-- KEYS[1]: the alert state hash. ARGV: condition id, its state now ('firing' | 'ok'), now (ms), lease (ms).
-- A field holds 'firing' or 'ok' once that state was delivered (or needs no message), and '<state>|<until ms>'
-- while its message is not delivered yet: an evaluator claims it until <until>; 0 means free to retry at once.
-- Returns {state to announce, value written} when the caller must deliver, else an empty array.
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local base, claim = string.match(cur, '^(%a+)|(%d+)$')
if not base then base = cur end
local now, lease = tonumber(ARGV[3]), tonumber(ARGV[4])
local claimed = ARGV[2] .. '|' .. tostring(now + lease)
if base == ARGV[2] then
  if not claim or tonumber(claim) > now then return {} end
  redis.call('HSET', KEYS[1], ARGV[1], claimed)
  return {ARGV[2], claimed}
end
-- Nothing was firing (first evaluation, or fine all along): nothing to announce.
if ARGV[2] == 'ok' and base ~= 'firing' then
  redis.call('HSET', KEYS[1], ARGV[1], 'ok')
  return {}
end
redis.call('HSET', KEYS[1], ARGV[1], claimed)
return {ARGV[2], claimed}
