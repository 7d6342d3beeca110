-- What a complete run's matched set would do to a search's membership (a dry run), changing nothing but deleting
-- that set. KEYS 1-5 and ARGV 1-2 as membership-update.lua; KEYS[6] the members in the search's CRM list (set).
-- ARGV[3]: 0 without a list, 1 with one, 2 with one whose leavers are removed from it (`onLeave: removeFromList`).
-- Returns {entered, left, matched, guarded (0/1), pending before, list adds, list removes}: the list figures count
-- keys as list-members.ts would send them (members not listed after the settle; leavers listed when the guard lets
-- them through), 0 without a list.
local confirm, maxShare, list = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local matched = redis.call('SCARD', KEYS[5])
local entered = #redis.call('SDIFF', KEYS[5], KEYS[1])
local left = 0
local leaving = {}
for _, id in ipairs(redis.call('SDIFF', KEYS[1], KEYS[5])) do
  if (tonumber(redis.call('HGET', KEYS[2], id)) or 0) + 1 >= confirm then
    left = left + 1
    leaving[id] = true
  end
end
local pending = #redis.call('SDIFF', KEYS[3], KEYS[5])
local baseline = tonumber(redis.call('HGET', KEYS[4], 'baseline'))
local guarded = 0
if matched == 0 or (baseline ~= nil and baseline > 0 and (baseline - matched) / baseline > maxShare) then guarded = 1 end
-- After the settle the members are (members - leaving) + matched: those not in the list yet are added.
local adds = 0
if list > 0 then
  adds = #redis.call('SDIFF', KEYS[5], KEYS[1], KEYS[6])
  for _, id in ipairs(redis.call('SDIFF', KEYS[1], KEYS[6])) do
    if not leaving[id] then adds = adds + 1 end
  end
end
-- The leavers acted on are the pending ones not matched again and the newly confirmed: removed if in the list.
local removed = 0
if list == 2 and guarded == 0 then
  for _, id in ipairs(redis.call('SINTER', KEYS[3], KEYS[6])) do
    if redis.call('SISMEMBER', KEYS[5], id) == 0 then removed = removed + 1 end
  end
  for id in pairs(leaving) do
    if redis.call('SISMEMBER', KEYS[6], id) == 1 then removed = removed + 1 end
  end
end
redis.call('DEL', KEYS[5])
return {entered, left, matched, guarded, pending, adds, removed}
