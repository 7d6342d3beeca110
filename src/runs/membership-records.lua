-- A bounded step on a search's record flags (src/runs/membership-store.ts; the record state:
-- src/shared/record-state.lua, run before this with its own prelude src/shared/linear-buckets.lua). Only the flags
-- part of a record's field is this script's: its change fingerprint is kept, but by erasure.
-- KEYS: 1 the flags' meta (hash), 2 the members of the layout before (set), 3 its list marks (set).
-- The buckets (ARGV[2] .. address) share the search's hash tag with KEYS.
-- ARGV: 1 op, 2 the buckets' name prefix, 3 a count, then:
--   'migrate': moves up to ARGV[3] members and list marks of the layout before into the flags (SPOP: a step cut off
--     loses nothing); returns the entries left there.
--   'get' (ids): their flags.
--   'list' (ids; ARGV[3] '1' to mark them listed, '0' to clear the mark): returns 0.
--   'page' (ARGV[4] the address to read from): whole buckets until ARGV[3] fields; returns {next address (0 at
--     the end), {id, flags, ...}}.
--   'unlist' (ARGV[4] the address): clears the list mark in whole buckets until ARGV[3] fields; returns the next
--     address (0 at the end).
--   'forget' (ids): removes their fields whole, flags and change fingerprint (erasure); returns 0.
--   'leave' (ids): clears their member flag (the list mark stays: the CRM list still holds them); returns their
--     flags before.
local op, count = ARGV[1], tonumber(ARGV[3])
rec_open(KEYS[1], ARGV[2])

if op == 'get' then
  local out = {}
  for i = 4, #ARGV do out[#out + 1] = rec_get(ARGV[i]) end
  return out
elseif op == 'page' then
  local next, fields = rec_page(tonumber(ARGV[4]), count)
  return { next, fields }
elseif op == 'migrate' then
  local members, listed = redis.call('SPOP', KEYS[2], count), redis.call('SPOP', KEYS[3], count)
  -- Nothing of the layout before (the usual case): nothing written.
  if #members + #listed == 0 then return 0 end
  rec_grow(#members + #listed)
  for _, id in ipairs(members) do rec_update(id, REC_MEMBER, true) end
  for _, id in ipairs(listed) do rec_update(id, REC_LISTED, true) end
  rec_close()
  return redis.call('SCARD', KEYS[2]) + redis.call('SCARD', KEYS[3])
elseif op == 'list' then
  local on = ARGV[3] == '1'
  if on then rec_grow(#ARGV - 3) end
  for i = 4, #ARGV do rec_update(ARGV[i], REC_LISTED, on) end
  rec_close()
  return 0
elseif op == 'forget' then
  for i = 4, #ARGV do rec_erase(ARGV[i]) end
  rec_close()
  return 0
elseif op == 'leave' then
  local out = {}
  for i = 4, #ARGV do out[#out + 1] = rec_update(ARGV[i], REC_MEMBER, false) end
  rec_close()
  return out
elseif op == 'unlist' then
  local next, fields = rec_page(tonumber(ARGV[4]), count)
  for i = 1, #fields, 2 do rec_update(fields[i], REC_LISTED, false) end
  rec_close()
  return next
end
return redis.error_reply('membership-records: unknown op ' .. tostring(op))
