-- Replaces one value a reader saw with its erased form, only if it is still what was read (src/shared/key-erase.ts).
-- KEYS[1]: the key. ARGV[1]: its type ('string', 'list' or 'hash'); ARGV[2]: the hash field (hash only);
-- ARGV[3]: the value as read; ARGV[4]: the new value, or '' to remove it (a list element, a hash field).
-- Returns 1 when replaced, 0 when the value changed meanwhile (read it again).
local kind, field, old, new = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if kind == 'string' then
  if redis.call('GET', KEYS[1]) ~= old then return 0 end
  if new == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], new, 'KEEPTTL') end
  return 1
elseif kind == 'hash' then
  if redis.call('HGET', KEYS[1], field) ~= old then return 0 end
  if new == '' then redis.call('HDEL', KEYS[1], field) else redis.call('HSET', KEYS[1], field, new) end
  return 1
elseif kind == 'list' then
  -- by value, not index: a list pushed to meanwhile (a run's history) moves its elements
  local at = redis.call('LPOS', KEYS[1], old)
  if not at then return 0 end
  if new == '' then redis.call('LREM', KEYS[1], 1, old) else redis.call('LSET', KEYS[1], at, new) end
  return 1
end
return 0
