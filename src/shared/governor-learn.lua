-- KEYS: state, probe, log, index. ARGV: limit, windowMs, mode, ttlMs, remaining (-1: unknown), id, index member.
redis.call('SADD', KEYS[4], ARGV[7])
learn(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6])
return 1
