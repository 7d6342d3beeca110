-- Everything one answer (or a request without one) teaches, in one call: the outcome counted, the grant stamped
-- again (see rate-governor.ts), the probe slot freed, the limit learned, the daily allowance stored.
-- KEYS: log, stats, state, probe, index. ARGV: outcome, grant ('' none), stats ttl s (0: leave; else the index is
-- written too), free probe ('1'), learn ('1') + limit, windowMs, mode, state ttl ms, remaining (-1), id, daily ('1') +
-- daily limit, daily remaining, window ends in ms (-1: unknown), index member.
-- A grant leaves the log at its score + window + guard: stamped `now`, one span from now; stamped
-- `now - (window - ends)`, at the end of the server's window that counted it plus the guard, when that is sooner.
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if ARGV[3] ~= '0' then
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[5], ARGV[16])
end
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'XX', now, ARGV[2]) end
if ARGV[4] == '1' then redis.call('DEL', KEYS[4]) end
if ARGV[5] == '1' then
  learn(KEYS[3], KEYS[4], KEYS[1], tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9], tonumber(ARGV[10]), ARGV[11])
end
local ends = tonumber(ARGV[15])
if ARGV[2] ~= '' and ends >= 0 then
  local windowMs = tonumber(redis.call('HGET', KEYS[3], 'windowMs'))
  if windowMs and ends < windowMs then redis.call('ZADD', KEYS[1], 'XX', now - (windowMs - ends), ARGV[2]) end
end
if ARGV[12] == '1' then
  redis.call('HSET', KEYS[3], 'dailyLimit', ARGV[13], 'dailyRemaining', ARGV[14], 'dailyAt', now)
  redis.call('PEXPIRE', KEYS[3], ARGV[9])
end
return 1
