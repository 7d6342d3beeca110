-- The change fingerprints of a search's own records (src/crm/search-change-detector.ts): the fingerprint part of
-- each record's field in the search's record state, its flags untouched, through the state's prelude
-- (src/shared/linear-buckets.lua and src/shared/record-state.lua, run before this).
-- KEYS: 1 the record state's meta (hash; the buckets: ARGV[2] .. address, under the search's hash tag).
-- ARGV: 1 op, 2 the buckets' name prefix, then:
--   'get' (ids): their fingerprints ('' where none).
--   'set' (ARGV[3] the base part's length, then id, base, rest triples): fingerprint = base .. rest, or, rest '',
--     base .. what the stored one holds past its base part; returns 0.
--   'drop' (ids): their fingerprints removed (a field left without flags is deleted); returns 0.
local op = ARGV[1]
rec_open(KEYS[1], ARGV[2])

if op == 'get' then
  local out = {}
  for i = 3, #ARGV do out[#out + 1] = rec_print(ARGV[i]) end
  return out
elseif op == 'set' then
  local baseLength = tonumber(ARGV[3])
  rec_grow((#ARGV - 3) / 3)
  for i = 4, #ARGV, 3 do
    local rest = ARGV[i + 2]
    if rest == '' then rest = string.sub(rec_print(ARGV[i]), baseLength + 1) end
    rec_set_print(ARGV[i], ARGV[i + 1] .. rest)
  end
  rec_close()
  return 0
elseif op == 'drop' then
  for i = 3, #ARGV do rec_set_print(ARGV[i], '') end
  rec_close()
  return 0
end
return redis.error_reply('record-prints: unknown op ' .. tostring(op))
