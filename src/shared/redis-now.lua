-- Sets `now` (ms) from Redis TIME, one clock for every process; scripts that read `now` put this file first.
local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
