-- KEYS: history list, links set. ARGV: match keys a write linked. Drops the history's failed-link entries of the keys
-- that were in the links set; returns how many were. The history is read only when a key was listed.
local listed = {}
local n = 0
for _, key in ipairs(ARGV) do
  if redis.call('SREM', KEYS[2], key) == 1 then listed[key] = true; n = n + 1 end
end
if n == 0 then return 0 end
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, entry = pcall(cjson.decode, raw)
  if ok and type(entry) == 'table' and entry.kind == 'link' and listed[entry.key] then
    redis.call('LREM', KEYS[1], 0, raw)
  end
end
return n
