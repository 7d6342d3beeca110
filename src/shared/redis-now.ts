/**
 * Lua prelude that sets `now` (milliseconds) from Redis TIME, so every process shares one clock. Prepend it to a
 * script with `withRedisNow(body)`; the body then reads `now`.
 */
const REDIS_NOW_LUA = `local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
`;

export function withRedisNow(body: string): string {
  return REDIS_NOW_LUA + body;
}
