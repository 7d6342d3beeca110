-- Rewrites one element of a reveal-log day list (src/source/reveal-log.ts) if it is still what the caller read.
-- KEYS[1]: the day's list. ARGV[1]: the element's index; ARGV[2]: its text as read; ARGV[3]: its new text, or ''
-- to remove it. Returns 1 when rewritten (or removed), 0 when the element changed meanwhile (read it again).
local current = redis.call('LINDEX', KEYS[1], ARGV[1])
if current ~= ARGV[2] then return 0 end
redis.call('LSET', KEYS[1], ARGV[1], ARGV[3])
-- An empty text is never a log line: it marks the one element to remove.
if ARGV[3] == '' then redis.call('LREM', KEYS[1], 1, '') end
return 1
