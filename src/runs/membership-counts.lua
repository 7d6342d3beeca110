-- How big a search's mirror is (src/runs/membership-store.ts), read only: KEYS 1 members, 2 pending leavers, 3 the
-- members in the search's CRM list. Counted here so that no key list crosses the wire.
-- Returns {members, pending, members not in the list}.
return {redis.call('SCARD', KEYS[1]), redis.call('SCARD', KEYS[2]), #redis.call('SDIFF', KEYS[1], KEYS[3])}
