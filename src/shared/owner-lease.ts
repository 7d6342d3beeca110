/** Owner-checked lease scripts: a lease key holds its owner's token, and only that owner may renew or release it. */
import { luaScript } from './lua-script.js';

/** KEYS: lease. ARGV: owner token, lease ms. Returns 1 when renewed, 0 when the lease is gone or another's. */
export const RENEW_IF_OWNER = luaScript('renewIfOwner', 1, new URL('./renew-if-owner.lua', import.meta.url));
/** KEYS: lease. ARGV: owner token. Returns 1 when released, 0 when the lease is gone or another's. */
export const RELEASE_IF_OWNER = luaScript('releaseIfOwner', 1, new URL('./release-if-owner.lua', import.meta.url));
