/**
 * Lua prelude that sets `now` (milliseconds) from Redis TIME, so every process shares one clock. Put it first in a
 * script's files (`luaScript(name, keys, REDIS_NOW_LUA, body)`); the body then reads `now`.
 */
export const REDIS_NOW_LUA = new URL('./redis-now.lua', import.meta.url);
