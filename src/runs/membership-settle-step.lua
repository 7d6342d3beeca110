-- One step of settling a complete run's matched set into a search's membership (src/runs/membership-store.ts):
-- a bounded slice of one phase, so no call holds Redis long whatever the membership's size. The settle's progress
-- (phase, cursor, counters) is kept with each step's writes, so a settle cut off resumes where it was, counting
-- nobody twice. Phases: `matched` (SSCAN of the run's set: the entered join the members, pending leavers matched
-- again and absences of the matched end), `members` (the members bucket by bucket, unchanged meanwhile: one more
-- absence for each not matched; those at `confirmRuns` are staged as leaving), `leaving` (the staged leave the
-- members for the pending leavers), then the guard.
-- Run after step-progress.lua, src/shared/linear-buckets.lua and src/shared/record-state.lua (its preludes): the
-- members are the records flagged member.
-- KEYS: 1 the record flags' meta (hash; the buckets: ARGV[5] .. address, under the search's hash tag), 2 absent
-- (hash: id -> consecutive complete runs absent), 3 pending (set: confirmed leavers not acted on), 4 meta (hash:
-- baseline, lastMatched), 5 the run's matched set (deleted at the end), 6 the settle's progress (hash), 7 the
-- leavers staged (set).
-- ARGV: 1 confirmRuns, 2 maxShare, 3 entries per step, 4 the progress TTL (seconds), 5 the flags' bucket prefix.
-- Returns {1 when settled else 0, entered, left, matched, guarded (0/1), pending}.
local confirm, maxShare, step = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local S = KEYS[6]
rec_open(KEYS[1], ARGV[5])
local phase, cursor = step_progress(S, 'matched', tonumber(ARGV[4]), 'entered', 0, 'left', 0, 'matched',
  redis.call('SCARD', KEYS[5]))

if phase == 'matched' then
  local r = redis.call('SSCAN', KEYS[5], cursor, 'COUNT', step)
  local entered = 0
  rec_grow(#r[2])
  for _, id in ipairs(r[2]) do
    if bit.band(rec_update(id, REC_MEMBER, true), REC_MEMBER) == 0 then
      entered = entered + 1
      -- A confirmed leaver not acted on yet that matches again is a member again, nothing to act on.
      redis.call('SREM', KEYS[3], id)
    end
    -- A member absent before and matched now starts over.
    redis.call('HDEL', KEYS[2], id)
  end
  rec_close()
  redis.call('HINCRBY', S, 'entered', entered)
  step_advance(S, r[1], 'members')
elseif phase == 'members' then
  -- The flags' buckets from address `cursor` on (none split meanwhile: this phase adds no field).
  local next, fields = rec_page(tonumber(cursor), step)
  local left = 0
  for i = 1, #fields, 2 do
    local id = fields[i]
    if bit.band(tonumber(fields[i + 1]), REC_MEMBER) ~= 0 and redis.call('SISMEMBER', KEYS[5], id) == 0
      and redis.call('HINCRBY', KEYS[2], id, 1) >= confirm then
      left = left + redis.call('SADD', KEYS[7], id)
    end
  end
  redis.call('HINCRBY', S, 'left', left)
  step_advance(S, string.format('%d', next), 'leaving')
elseif phase == 'leaving' then
  local r = redis.call('SSCAN', KEYS[7], cursor, 'COUNT', step)
  for _, id in ipairs(r[2]) do
    rec_update(id, REC_MEMBER, false)
    redis.call('HDEL', KEYS[2], id)
    redis.call('SADD', KEYS[3], id)
  end
  rec_close()
  step_advance(S, r[1], 'guard')
else
  local entered, left, matched = unpack(redis.call('HMGET', S, 'entered', 'left', 'matched'))
  matched = tonumber(matched)
  -- The guard compares with the matches of the last run it let through (or that `leavers --apply` accepted).
  local baseline = tonumber(redis.call('HGET', KEYS[4], 'baseline'))
  local guarded = 0
  if matched == 0 or (baseline ~= nil and baseline > 0 and (baseline - matched) / baseline > maxShare) then
    guarded = 1
  end
  if guarded == 0 then redis.call('HSET', KEYS[4], 'baseline', matched) end
  redis.call('HSET', KEYS[4], 'lastMatched', matched)
  -- Freed in the background: a set of millions is not freed within one call.
  redis.call('UNLINK', KEYS[5], KEYS[7], S)
  return {1, tonumber(entered), tonumber(left), matched, guarded, redis.call('SCARD', KEYS[3])}
end
return {0, 0, 0, 0, 0, 0}
