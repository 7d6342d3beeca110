-- How big a search's mirror is (src/runs/membership-store.ts), read only: KEYS 1 members, 2 pending leavers, 3 the
-- members in the search's CRM list; ARGV[1] 1 when the search has a list. Counted here so that no key list crosses
-- the wire. Returns {members, pending, members not in the list (0 without a list)}.
local unlisted = 0
if ARGV[1] == '1' then unlisted = #redis.call('SDIFF', KEYS[1], KEYS[3]) end
return {redis.call('SCARD', KEYS[1]), redis.call('SCARD', KEYS[2]), unlisted}
