local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
