-- KEYS: lock. ARGV: owner token (`<run id>#<attempt>`), ttl ms, `<run id>#`.
-- Per attempt, not per run: another attempt of the same run (a stalled job picked up again while its first worker
-- still runs, or the lock of a crashed worker not yet expired) is waited for, never joined, so one run never walks
-- twice at once. 1: taken; 2: held by another attempt of this run; 0: held by another run.
local cur = redis.call('GET', KEYS[1])
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if string.sub(cur, 1, string.len(ARGV[3])) == ARGV[3] then return 2 end
return 0
