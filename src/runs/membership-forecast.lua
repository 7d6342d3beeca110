-- What a complete run's matched set would do to a search's membership (a dry run), changing nothing but deleting
-- that set. KEYS and ARGV as membership-update.lua. Returns {entered, left, matched, guarded (0/1), pending before}.
local confirm, maxShare = tonumber(ARGV[1]), tonumber(ARGV[2])
local matched = redis.call('SCARD', KEYS[5])
local entered = #redis.call('SDIFF', KEYS[5], KEYS[1])
local left = 0
for _, id in ipairs(redis.call('SDIFF', KEYS[1], KEYS[5])) do
  if (tonumber(redis.call('HGET', KEYS[2], id)) or 0) + 1 >= confirm then left = left + 1 end
end
local pending = #redis.call('SDIFF', KEYS[3], KEYS[5])
redis.call('DEL', KEYS[5])
local baseline = tonumber(redis.call('HGET', KEYS[4], 'baseline'))
local guarded = 0
if matched == 0 or (baseline ~= nil and baseline > 0 and (baseline - matched) / baseline > maxShare) then guarded = 1 end
return {entered, left, matched, guarded, pending}
