import { createHash } from 'node:crypto';

/** Records per HubSpot batch call (read, upsert, associations): HubSpot's cap on inputs per batch. */
export const HUBSPOT_BATCH_SIZE = 100;

/**
 * Requests per 10 s assumed of a portal before its first answer when the config sets no bound: the lowest tier's
 * (Free/Starter). From the first answer on, its X-HubSpot-RateLimit-Max is followed both ways.
 */
export const HUBSPOT_ASSUMED_PER_10S = 100;

/** Records per second a portal takes at `limit` requests per `windowMs`, a full batch each. */
export function hubspotCeiling(limit: number, windowMs: number): number {
  return (limit / windowMs) * 1000 * HUBSPOT_BATCH_SIZE;
}

/** A portal's answered `max` per `windowMs`, never above a configured requests per 10 s (scaled to that window). */
export function boundedLimit(max: number, windowMs: number, boundPer10s: number | undefined): number {
  return boundPer10s === undefined ? max : Math.min(max, Math.max(1, Math.floor((boundPer10s * windowMs) / 10_000)));
}

/** The portal's label in the shared rate governor: a short hash of its address and token, never the token. */
export function hubspotGovernorAccount(baseUrl: string, accessToken: string): string {
  return createHash('sha256')
    .update(`${baseUrl.replace(/\/+$/, '')}\n${accessToken}`)
    .digest('hex')
    .slice(0, 12);
}
